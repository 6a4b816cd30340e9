// Article snippet 3, the polling loop, verbatim (the demo's deployment is
// announced on the third read, so it sleeps twice for 5 s).
import * as slack from './servers/slack';

let found = false;
while (!found) {
  const messages = await slack.getChannelHistory({ channel: 'C123456' });
  found = messages.some(m => m.text.includes('deployment complete'));
  if (!found) await new Promise(r => setTimeout(r, 5000));
}
console.log('Deployment notification received');
