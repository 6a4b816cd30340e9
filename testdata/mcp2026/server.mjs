// An upstream MCP server that speaks ONLY the 2026-07-28 revision, written
// with the official TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0,
// pinned in testdata/npm): a server nobody here wrote, of the kind now being
// published. Legacy openings (`initialize`) are rejected with the
// unsupported-protocol-version error, as the SDK does in its strict mode.
//
// Usage: NPM_DIR=testdata/npm node server.mjs stdio
//        NPM_DIR=testdata/npm PORT=8123 node server.mjs http   (stateless streamable HTTP at /mcp)
//
// Tools:
//   add         {a, b} → "a+b=<sum>" (read-only)
//   grüße       {}     → "grüße zurück" (read-only; a name that is not ASCII)
//   write_note  {text} → asks the person to confirm (an `input_required`
//               result carrying a form elicitation); only after an accepted
//               confirmation does it append the text to $NOTES_FILE.
//   ask_model   {}     → asks for a model's completion (sampling) by
//               `input_required`; reports what the client answered.
//   list_roots  {}     → asks for the client's roots by `input_required` and
//               returns their URIs.
import { createRequire } from "node:module";
import { appendFileSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";

const require = createRequire(path.join(process.env.NPM_DIR, "package.json"));
const sdk = require("@modelcontextprotocol/server");
const { McpServer, fromJsonSchema, inputRequired, inputResponse, createMcpHandler } = sdk;

const mode = process.argv[2];
const notes = process.env.NOTES_FILE;

function factory() {
  const server = new McpServer({ name: "modern-only", version: "2.4.0-test" }, { capabilities: { tools: {} } });
  server.registerTool(
    "add",
    {
      description: "Adds two numbers",
      inputSchema: fromJsonSchema({ type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] }),
      annotations: { readOnlyHint: true },
    },
    async ({ a, b }) => ({ content: [{ type: "text", text: `${a}+${b}=${a + b}` }] }),
  );
  // A name that is not plain ASCII: over HTTP its Mcp-Name header must be
  // Base64-encoded, which this SDK checks against the body.
  server.registerTool(
    "grüße",
    { description: "Greets", inputSchema: fromJsonSchema({ type: "object", properties: {} }), annotations: { readOnlyHint: true } },
    async () => ({ content: [{ type: "text", text: "grüße zurück" }] }),
  );
  server.registerTool(
    "write_note",
    {
      description: "Appends a note to the notes file, after the person confirms",
      inputSchema: fromJsonSchema({ type: "object", properties: { text: { type: "string" } }, required: ["text"] }),
    },
    async ({ text }, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, "confirm");
      if (answer.kind !== "elicit") {
        return inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({
              message: `Write the note "${text}"?`,
              requestedSchema: {
                type: "object",
                properties: { reason: { type: "string", title: "Why", description: "Why you write it" } },
                required: ["reason"],
              },
            }),
          },
          requestState: "confirm-" + text,
        });
      }
      if (answer.action !== "accept") {
        return { content: [{ type: "text", text: `not written: the person answered ${answer.action}` }], isError: true };
      }
      if (ctx.mcpReq.requestState() !== "confirm-" + text) {
        return { content: [{ type: "text", text: "not written: request state was not echoed" }], isError: true };
      }
      appendFileSync(notes, `${text} (${answer.content?.reason})\n`);
      return { content: [{ type: "text", text: `written: ${text} because ${answer.content?.reason}` }] };
    },
  );
  server.registerTool(
    "ask_model",
    { description: "Asks the client's model a question", inputSchema: fromJsonSchema({ type: "object", properties: {} }) },
    async (_args, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, "sample");
      if (answer.kind === "missing") {
        return inputRequired({
          inputRequests: {
            sample: inputRequired.createMessage({
              messages: [{ role: "user", content: { type: "text", text: "Say hi" } }],
              maxTokens: 10,
            }),
          },
        });
      }
      return { content: [{ type: "text", text: "model answered: " + JSON.stringify(answer) }] };
    },
  );
  server.registerTool(
    "list_roots",
    { description: "Lists the client's roots", inputSchema: fromJsonSchema({ type: "object", properties: {} }) },
    async (_args, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, "roots");
      if (answer.kind !== "roots") {
        return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
      }
      return { content: [{ type: "text", text: "roots: " + answer.roots.map((r) => r.uri).join(" ") }] };
    },
  );
  return server;
}

if (mode === "stdio") {
  const { serveStdio } = require("@modelcontextprotocol/server/stdio");
  serveStdio(factory, { legacy: "reject" });
} else if (mode === "http") {
  const handler = createMcpHandler(factory, { legacy: "reject" });
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks);
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers: req.headers,
      body: req.method === "GET" || req.method === "HEAD" ? undefined : body,
    });
    const response = await handler.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) {
      for await (const chunk of response.body) res.write(chunk);
    }
    res.end();
  });
  server.listen(Number(process.env.PORT), "127.0.0.1", () => console.error("listening on " + process.env.PORT));
} else {
  console.error("usage: node server.mjs stdio|http");
  process.exit(2);
}
