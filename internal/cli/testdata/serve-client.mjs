// An MCP host's view of `mcpcode serve`, written with the official
// TypeScript SDK (pinned in testdata/npm): a client nobody here wrote.
// Usage: node serve-client.mjs MCPCODE_BINARY WORKSPACE
// It prints one line per step ("ok STEP ..."), "PROPOSED" when it waits for
// a person to approve the skill (one line on stdin says it was), and exits
// non-zero at the first step that does not hold.
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import path from "node:path";

const require = createRequire(path.join(process.env.NPM_DIR, "package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { ElicitRequestSchema, ToolListChangedNotificationSchema } = require("@modelcontextprotocol/sdk/types.js");

const [binary, workspace] = process.argv.slice(2);
const fail = (msg) => { console.log("FAIL " + msg); process.exit(1); };
const text = (res) => res.content.filter((c) => c.type === "text").map((c) => c.text).join("");

const client = new Client({ name: "sdk-test-host", version: "1.0.0" }, { capabilities: { elicitation: {} } });
let asked = 0;
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  asked++;
  if (!req.params.message.includes("salesforce.updateRecord")) fail("elicitation message: " + req.params.message);
  // A yes/no dialog's answer: accept, nothing filled in.
  return { action: "accept", content: {} };
});
let listChanged;
const changed = new Promise((resolve) => { listChanged = resolve; });
client.setNotificationHandler(ToolListChangedNotificationSchema, () => listChanged());

const transport = new StdioClientTransport({ command: binary, args: ["serve", "--dir", workspace, "--timeout", "2m"], stderr: "inherit" });
await client.connect(transport);
const info = client.getServerVersion();
if (info?.name !== "mcpcode") fail("server name " + JSON.stringify(info));
console.log("ok initialize " + info.name);

const tools = (await client.listTools()).tools.map((t) => t.name).sort();
if (tools.join(",") !== "execute,propose_skill,read,search_tools") fail("tools " + tools);
console.log("ok tools " + tools.join(","));

let res = await client.callTool({ name: "search_tools", arguments: { query: "all rows of a spreadsheet" } });
if (!text(res).startsWith("google-drive.getSheet")) fail("search: " + text(res));
console.log("ok search google-drive.getSheet");

res = await client.callTool({ name: "read", arguments: { path: "servers/google-drive/getSheet.ts" } });
if (!text(res).includes("export async function getSheet")) fail("read: " + text(res));
console.log("ok read servers/google-drive/getSheet.ts");

res = await client.callTool({ name: "execute", arguments: { code: `
import { getSheet } from "servers/google-drive/getSheet";
import { updateRecord } from "servers/salesforce/updateRecord";
const sheet = await getSheet({ sheetId: "abc123" });
const pending = sheet.rows.filter((r) => r.Status === "pending");
await updateRecord({ objectType: "Lead", recordId: "00Q5f000001abcXYZ", data: { Description: "pending: " + pending.length } });
console.log("rows", sheet.rows.length);
export default pending.slice(0, 5).map((r) => r.orderId);` } });
if (res.isError || !text(res).startsWith("rows 10000\n") || res.structuredContent?.ok !== true || res.structuredContent.result.length !== 5) fail("execute: " + text(res));
if (asked !== 1) fail("the write was asked about " + asked + " times");
console.log("ok execute: 10000 rows in, " + res.structuredContent.result.length + " out, write confirmed by a plain accept");

res = await client.callTool({ name: "propose_skill", arguments: {
  name: "count-orders", description: "Counts the orders of the order sheet in one status.", rationale: "asked every week",
  inputSchema: { type: "object", properties: { status: { type: "string" } } },
  code: `import { getSheet } from "servers/google-drive/getSheet";
export default async function (input: { status?: string }) {
  const sheet = await getSheet({ sheetId: "abc123" });
  return { status: input.status ?? "pending", count: sheet.rows.filter((r) => r.Status === (input.status ?? "pending")).length };
}` } });
if (res.isError || !text(res).includes("Nothing runs")) fail("propose: " + text(res));
console.log("PROPOSED");

const line = createInterface({ input: process.stdin });
await new Promise((resolve) => line.once("line", resolve));
await Promise.race([changed, new Promise((_, reject) => setTimeout(() => reject(new Error("no tools/list_changed within 30 s")), 30000))]).catch((e) => fail(e.message));
console.log("ok list_changed");

const skill = (await client.listTools()).tools.find((t) => t.name === "count-orders");
if (!skill || skill.annotations?.readOnlyHint !== true) fail("skill tool: " + JSON.stringify(skill));
res = await client.callTool({ name: "count-orders", arguments: { status: "cancelled" } });
if (res.isError || res.structuredContent?.result?.status !== "cancelled" || !(res.structuredContent.result.count > 0)) fail("skill call: " + text(res));
console.log("ok skill count-orders: " + res.structuredContent.result.count + " cancelled");
await client.close();
process.exit(0);
