// Poll a Slack channel until the deployment is announced, then say so.
// The loop runs in the program; the model sees one line per poll.
import { getChannelHistory } from "servers/slack/getChannelHistory";
import { postMessage } from "servers/slack/postMessage";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type History = { messages: { ts: string; user: string; text: string }[] };

let polls = 0;
for (;;) {
  polls++;
  const history = (await getChannelHistory({ channel: "C123456", limit: 5 })).data as History;
  const done = history.messages.find((m) => m.text.includes("deployment complete"));
  if (done) {
    console.log(`poll ${polls}: "${done.text}" (by ${done.user})`);
    break;
  }
  console.log(`poll ${polls}: not yet (latest: "${history.messages[0]?.text}")`);
  await sleep(300);
}
await postMessage({ channel: "C123456", text: `Deployment noticed after ${polls} polls.` });
export default { polls };
