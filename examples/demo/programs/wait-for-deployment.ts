// Poll a Slack channel until the deployment is announced, then say so.
// The loop runs in the program; the model sees one line per poll.
import { getChannelHistory } from "servers/slack/getChannelHistory";
import { postMessage } from "servers/slack/postMessage";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let polls = 0;
for (;;) {
  polls++;
  const messages = await getChannelHistory({ channel: "C123456", limit: 5 });
  const done = messages.find((m) => m.text.includes("deployment complete"));
  if (done) {
    console.log(`poll ${polls}: "${done.text}" (by ${done.user})`);
    break;
  }
  console.log(`poll ${polls}: not yet (latest: "${messages[0]?.text}")`);
  await sleep(300);
}
await postMessage({ channel: "C123456", text: `Deployment noticed after ${polls} polls.` });
export default { polls };
