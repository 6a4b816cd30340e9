// The flow of examples/demo/programs/pending-orders.ts written for Node
// with the official MCP TypeScript SDK (pinned in testdata/npm): start the
// server, call getSheet once, filter the 10,000 rows, print five. It is the
// shortest such program (no tools/list first, so the SDK does not check the
// rows against the output schema), which makes the comparison in
// docs/BENCHMARKS.md conservative.
//
//   node testdata/bench/node/pending-orders.mjs COMMAND [ARG...]
//
// COMMAND starts the stdio server (mcpcode demo-server google-drive, or
// the replay server of testdata/bench/replay).
import { createRequire } from "node:module";

const require = createRequire(new URL("../../npm/package.json", import.meta.url));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

const [command, ...args] = process.argv.slice(2);
const client = new Client({ name: "pending-orders", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command, args }));
const res = await client.callTool({ name: "getSheet", arguments: { sheetId: "abc123" } });
const sheet = res.structuredContent;
const pending = sheet.rows.filter((row) => row["Status"] === "pending");
console.log(`Found ${pending.length} pending orders out of ${sheet.rows.length}`);
for (const row of pending.slice(0, 5)) {
  console.log(`${row["orderId"]}  ${row["name"]}  ${row["email"]}  ${row["amount"]}`);
}
console.log(JSON.stringify({ pending: pending.length, total: sheet.rows.length }, null, 2));
await client.close();
