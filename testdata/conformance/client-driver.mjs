#!/usr/bin/env node
// The client driver of the MCP conformance suite (client mode): the suite
// starts a test server per scenario and runs `node client-driver.mjs URL`.
// The driver uses nothing but the mcpcode binary ($MCPCODE), as a user
// would: it writes an mcp.json with the suite's URL (and, in an "oauth"
// object, any client credentials the suite hands over in
// MCP_CONFORMANCE_CONTEXT), then runs `mcpcode auth`, `mcpcode tools`,
// `mcpcode gen` and `mcpcode run` of a program that calls every tool.
//
// `mcpcode auth` opens the login page with `$BROWSER URL`; here $BROWSER
// is this script in --browser mode, which plays the person: it follows the
// authorization server's redirects to mcpcode's loopback redirect URL.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const self = fileURLToPath(import.meta.url);

if (process.argv[2] === "--browser") {
  // The person at the browser: open the page and follow every redirect
  // (the authorization server's, then mcpcode's redirect URL).
  const res = await fetch(process.argv[3], { redirect: "follow" });
  await res.text();
  process.exit(res.ok ? 0 : 1);
}

const url = process.argv[2];
const mcpcode = process.env.MCPCODE;
if (!url || !mcpcode) {
  console.error("usage: MCPCODE=/path/to/mcpcode client-driver.mjs URL");
  process.exit(2);
}
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}");

const ws = mkdtempSync(join(tmpdir(), "mcpcode-conformance-"));
const config = join(tmpdir(), `mcpcode-conformance-config-${process.pid}`);
const env = {
  ...process.env,
  BROWSER: `${JSON.stringify(process.execPath)} ${JSON.stringify(self)} --browser`,
  XDG_CONFIG_HOME: config, // tokens of this scenario only
  HOME: config,
};

// The "oauth" object a user of this client would write: the client ID
// Metadata Document URL the suite knows for this client (used when the
// authorization server supports such documents), and the client
// credentials the suite registered in advance, if any.
const oauth = { clientMetadataUrl: "https://conformance-test.local/client-metadata.json" };
if (context.client_id) oauth.clientId = context.client_id;
if (context.client_secret) oauth.clientSecret = context.client_secret;
const server = { type: "http", url, oauth };
writeFileSync(join(ws, "mcp.json"), JSON.stringify({ mcpServers: { test: server } }, null, 2));

let failed = false;
function mcp(...args) {
  const r = spawnSync(mcpcode, args, { cwd: ws, env, encoding: "utf8", timeout: 60000 });
  process.stderr.write(`$ mcpcode ${args.join(" ")} (exit ${r.status})\n${r.stdout}${r.stderr}`);
  if (r.status !== 0) failed = true;
  return r;
}

// The run happens at a terminal (util-linux script(1) gives it one), where
// the person accepts what a server asks with its defaults: "y", then Enter
// at every question.
function runAtTerminal(file) {
  const quoted = [mcpcode, "run", file].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ");
  const r = spawnSync("script", ["-qec", quoted, "/dev/null"], {
    cwd: ws, env, encoding: "utf8", timeout: 60000, input: "y\n" + "\n".repeat(40),
  });
  if (r.error) return mcp("run", file); // no script(1): without a terminal
  process.stderr.write(`$ mcpcode run ${file} (at a terminal; exit ${r.status})\n${r.stdout}${r.stderr}`);
  if (r.status !== 0) failed = true;
  return r;
}

mcp("auth", "test");
const listed = mcp("tools", "--json", "test");
mcp("gen");

// A program calling every tool the server lists, with arguments made from
// each tool's input schema.
let tools = [];
try {
  tools = JSON.parse(listed.stdout).servers[0].tools;
} catch {}
function sample(schema) {
  if (!schema || typeof schema !== "object") return null;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  switch (schema.type) {
    case "number":
    case "integer":
      return 1;
    case "boolean":
      return true;
    case "string":
      return "test";
    case "array":
      return [];
    case "object":
      return args(schema);
  }
  return null;
}
function args(schema) {
  const out = {};
  for (const name of schema?.required || []) out[name] = sample(schema.properties?.[name]);
  return out;
}
// The calls: those the scenario names in MCP_CONFORMANCE_CONTEXT
// ("toolCalls", with their arguments) when it names some; else every tool,
// with arguments made from its schema. The 2020-12 preservation scenario
// asks the client to pass the schema it received for one tool back to an
// echo tool: the schema as mcpcode lists it.
// A null for an optional argument whose schema does not allow null is left
// out, as a program written against the generated types does (there it is
// `name?: T`; mcpcode refuses the null before sending).
function typed(name, given) {
  const props = tools.find((t) => t.name === name)?.inputSchema?.properties ?? {};
  const out = {};
  for (const [k, v] of Object.entries(given ?? {})) {
    const type = props[k]?.type;
    if (v === null && type !== undefined && type !== "null" && !(Array.isArray(type) && type.includes("null"))) continue;
    out[k] = v;
  }
  return out;
}
let wanted = Array.isArray(context.toolCalls)
  ? context.toolCalls.map((c) => ({ name: c.name, arguments: typed(c.name, c.arguments) }))
  : tools.map((t) => ({ name: t.name, arguments: args(t.inputSchema) }));
if (process.env.MCP_CONFORMANCE_SCENARIO === "json-schema-2020-12-preservation") {
  const focal = tools.find((t) => t.name === "json_schema_2020_12_tool");
  wanted = [{ name: "json_schema_echo", arguments: { schema: focal?.inputSchema ?? null } }];
}
const calls = wanted.map((c) => `  try {
    const r: any = await callMCPTool("test", ${JSON.stringify(c.name)}, ${JSON.stringify(c.arguments)});
    console.log(${JSON.stringify(c.name)}, JSON.stringify(r));
  } catch (e) {
    console.log(${JSON.stringify(c.name)}, "failed:", String(e));
  }`);
writeFileSync(join(ws, "program.ts"), `import { callMCPTool } from "mcpcode:runtime";\n${calls.join("\n")}\n`);
runAtTerminal("program.ts");

rmSync(ws, { recursive: true, force: true });
rmSync(config, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
