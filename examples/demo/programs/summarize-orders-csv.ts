// Read back the CSV an earlier run saved and summarize it: no tool call at
// all, so no upstream server is even started.
import { readFile } from "mcpcode:fs";

const [header, ...rows] = (await readFile("orders.csv")).trimEnd().split("\n");
const columns = header.split(",");
const status = columns.indexOf("Status");
const counts: Record<string, number> = {};
for (const line of rows) {
  const s = line.split(",")[status];
  counts[s] = (counts[s] ?? 0) + 1;
}
console.log(`workspace/orders.csv: ${rows.length} rows`);
export default counts;
