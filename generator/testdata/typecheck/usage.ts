// Type-level tests of the generated API, checked by TestTypeLevel with
// tsc --strict. Each @ts-expect-error must stay an error (tsc fails on an
// unused one); the other calls must type-check.
import { ToolError, type ToolResult, AbortController, readResource, listResources, type Progress } from "mcpcode:runtime";
import { readTextFile, readMultipleFiles, type ReadTextFileOutput } from "servers/filesystem";
import { listIssues, createIssue } from "servers/github";
import { createEntities } from "../../servers/memory/createEntities";
import { readGraph } from "servers/memory/readGraph.ts";
import { apiPostPage, apiPostSearch } from "servers/notion";
import { browserConsoleMessages } from "servers/playwright";
import * as thinking from "servers/sequential-thinking";

export async function correctCalls(): Promise<void> {
  const file: ReadTextFileOutput = await readTextFile({ path: "notes.txt", head: 3 });
  const content: string = file.content;
  const many = await readMultipleFiles({ paths: ["a", "b"] });
  const issues: ToolResult = await listIssues({ owner: "o", repo: "r", state: "open", labels: ["bug"] });
  await createIssue({ owner: "o", repo: "r", title: "t" });
  await createEntities({ entities: [{ name: "n", entityType: "person", observations: ["x"] }] });
  const graph = await readGraph();
  const names: string[] = graph.entities.map((e) => e.name);
  await apiPostPage({ parent: { page_id: "p" }, properties: {} });
  await apiPostSearch({ filter: { value: "page", property: "object" } });
  await apiPostSearch();
  console.log(content, many, issues.text, issues.data, names);
  // A required property with a default ("level") may be left out.
  await browserConsoleMessages();
  // integer is number: plain numbers go in, numbers come out.
  const n = 3;
  const step: thinking.SequentialthinkingOutput = await thinking.sequentialthinking({ thought: "t", nextThoughtNeeded: true, thoughtNumber: n, totalThoughts: 5 });
  const next: number = step.thoughtNumber + 1;
  // Timers and console as programs use them (the article's polling loop).
  await new Promise((r) => setTimeout(r, 5000));
  const timer = setTimeout(() => console.info("tick", next), 10);
  clearTimeout(timer);
  console.warn("done");
  // Call options: a timeout, a signal, progress reports; resources.
  const ac = new AbortController();
  const seen: Progress[] = [];
  await readTextFile({ path: "notes.txt" }, { timeoutMs: 500, signal: ac.signal, onProgress: (p) => seen.push(p) });
  ac.abort();
  const resources = await listResources("filesystem");
  const contents = await readResource("filesystem", resources[0].uri);
  const text: string | undefined = contents[0].text;
  console.log(seen.length, text);
  try {
    await readTextFile({ path: "missing.txt" });
  } catch (err) {
    if (err instanceof ToolError) {
      const kind: "tool" | "transport" | "validation" | "limit" | "permission" | "canceled" = err.kind;
      console.log(kind, err.server, err.tool, err.result?.text);
    }
  }
}

export async function wrongCalls(): Promise<void> {
  // @ts-expect-error timeoutMs is a number
  await readTextFile({ path: "notes.txt" }, { timeoutMs: "1s" });
  // @ts-expect-error a wrong property name
  await readTextFile({ pth: "notes.txt" });
  // @ts-expect-error a wrong enum value
  await listIssues({ owner: "o", repo: "r", state: "opened" });
  // @ts-expect-error a missing required field
  await listIssues({ owner: "o" });
  // @ts-expect-error a wrong type
  await readTextFile({ path: 42 });
  // @ts-expect-error no input for a tool with a required property
  await readTextFile();
  // @ts-expect-error a wrong element type in a nested array
  await createEntities({ entities: [{ name: "n", entityType: "person", observations: [1] }] });
  // @ts-expect-error a wrong enum value in a nested object
  await apiPostSearch({ filter: { value: "pages", property: "object" } });
  const file = await readTextFile({ path: "notes.txt" });
  // @ts-expect-error a property the output does not have
  console.log(file.contents);
  const issues = await listIssues({ owner: "o", repo: "r" });
  // @ts-expect-error a tool without output schema returns a ToolResult, not the output
  console.log(issues.items);
  // @ts-expect-error an integer is still a number, not a string
  await thinking.sequentialthinking({ thought: "t", nextThoughtNeeded: true, thoughtNumber: "1", totalThoughts: 5 });
  // @ts-expect-error a value outside the enum of a defaulted property
  await browserConsoleMessages({ level: "verbose" });
}
