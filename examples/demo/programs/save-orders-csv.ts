// Save the order sheet as CSV in workspace/ for a later run to use. Files
// under workspace/ persist across runs; nothing else of the host is reachable.
import { getSheet } from "servers/google-drive/getSheet";
import { writeFile } from "mcpcode:fs";

const sheet = await getSheet({ sheetId: "abc123" });
const cell = (v: unknown) => {
  const s = String(v ?? "");
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};
const lines = [sheet.columns.join(",")];
for (const row of sheet.rows) lines.push(sheet.columns.map((c) => cell(row[c])).join(","));
await writeFile("orders.csv", lines.join("\n") + "\n");
console.log(`Saved ${sheet.rows.length} rows to workspace/orders.csv`);
export default { rows: sheet.rows.length };
