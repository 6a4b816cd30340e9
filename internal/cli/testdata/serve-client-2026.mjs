// A host on MCP protocol 2026-07-28 driving `mcpcode serve`, written with
// the official TypeScript SDK v2 client (@modelcontextprotocol/client,
// pinned in testdata/npm): a client nobody here wrote.
// Usage: node serve-client-2026.mjs stdio MCPCODE_BINARY WORKSPACE
//        node serve-client-2026.mjs http URL
//        node serve-client-2026.mjs replicas URL
// Environment: NPM_DIR (testdata/npm).
// It prints one line per step ("ok STEP ...") and exits non-zero at the
// first step that does not hold. Steps (stdio, http): a read-only execute
// (nobody is asked); an execute whose write the person confirms with a
// plain accept (the record changes); one whose write the person declines
// (the record stays as it was, nothing is sent). replicas: one execute
// that reads, writes, reads, writes and reads, both writes confirmed with a
// plain accept (three rounds of one call).
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.env.NPM_DIR, "package.json"));
const { Client, StreamableHTTPClientTransport } = require("@modelcontextprotocol/client");
const { StdioClientTransport } = require("@modelcontextprotocol/client/stdio");

const [mode, target, workspace] = process.argv.slice(2);
const fail = (msg) => { console.log("FAIL " + msg); process.exit(1); };
const text = (res) => (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");

const client = new Client({ name: "sdk-v2-test-host", version: "1.0.0" }, {
  capabilities: { elicitation: { form: {} } },
  versionNegotiation: { mode: { pin: "2026-07-28" } },
});
const questions = [];
let answer = { action: "accept", content: {} };
client.setRequestHandler("elicitation/create", async (req) => {
  questions.push(req.params.message);
  return answer;
});

const transport = mode === "stdio"
  ? new StdioClientTransport({ command: target, args: ["serve", "--dir", workspace, "--timeout", "2m"], stderr: "inherit" })
  : new StreamableHTTPClientTransport(new URL(target));
await client.connect(transport);
const info = client.getServerVersion();
if (info?.name !== "mcpcode") fail("server name " + JSON.stringify(info));
const version = client.getNegotiatedProtocolVersion?.() ?? "(unknown)";
if (version !== "2026-07-28") fail("negotiated protocol " + version);
console.log("ok connected " + info.name + " " + version);

const status = `import { getRecord } from "servers/salesforce/getRecord";
const r: any = await getRecord({ objectType: "Lead", recordId: "00Q5f000001abcXYZ" });
export default r.Status ?? r.record?.Status;`;
const write = (value) => `import { updateRecord } from "servers/salesforce/updateRecord";
import { getRecord } from "servers/salesforce/getRecord";
try {
  await updateRecord({ objectType: "Lead", recordId: "00Q5f000001abcXYZ", data: { Status: "${value}" } });
  console.log("written");
} catch (e: any) {
  console.log("refused:", e.kind);
}
const r: any = await getRecord({ objectType: "Lead", recordId: "00Q5f000001abcXYZ" });
export default r.Status ?? r.record?.Status;`;

if (mode === "replicas") {
  const code = `import { query } from "servers/salesforce/query";
import { updateRecord } from "servers/salesforce/updateRecord";
const id = "00Q5f000001abcXYZ";
const q = async (fields: string) => ((await query({ query: "SELECT " + fields + " FROM Lead WHERE Id = '" + id + "'" })) as any).records[0];
console.log("before", (await q("Id, Status")).Status);
await updateRecord({ objectType: "Lead", recordId: id, data: { Status: "Qualified" } });
console.log("mid", (await q("Id, Name, Status")).Status);
await updateRecord({ objectType: "Lead", recordId: id, data: { Description: "confirmed on any replica" } });
export default await q("Id, Status, Description");`;
  const res = await client.callTool({ name: "execute", arguments: { code } });
  const r = res.structuredContent?.result;
  if (res.isError || r?.Status !== "Qualified" || r?.Description !== "confirmed on any replica" || !text(res).includes("mid Qualified")) fail("execute across replicas: " + text(res));
  if (questions.length !== 2) fail("asked " + questions.length + " times, want 2: " + JSON.stringify(questions));
  console.log("ok replicas: two writes confirmed, " + JSON.stringify(r));
  await client.close();
  process.exit(0);
}

let res = await client.callTool({ name: "execute", arguments: { code: status } });
if (res.isError || res.structuredContent?.ok !== true) fail("read-only execute: " + text(res));
const before = res.structuredContent.result;
if (questions.length !== 0) fail("a read-only run asked: " + questions);
console.log("ok read-only execute: " + before);

res = await client.callTool({ name: "execute", arguments: { code: write("Qualified") } });
if (res.isError || res.structuredContent?.result !== "Qualified" || !text(res).includes("written")) fail("confirmed write: " + text(res));
if (questions.length !== 1 || !questions[0].includes("salesforce.updateRecord") || !questions[0].includes('"Qualified"')) fail("the question: " + JSON.stringify(questions));
console.log("ok write confirmed by a plain accept: " + before + " -> " + res.structuredContent.result);

answer = { action: "decline" };
res = await client.callTool({ name: "execute", arguments: { code: write("Closed - Not Converted") } });
if (res.isError || res.structuredContent?.result !== "Qualified" || !text(res).includes("refused: permission")) fail("declined write: " + text(res));
if (questions.length !== 2) fail("the declined write was asked " + (questions.length - 1) + " times");
console.log("ok write declined: record unchanged " + res.structuredContent.result);

await client.close();
process.exit(0);
