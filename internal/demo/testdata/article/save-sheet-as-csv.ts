// Article snippet 5, the skill ./skills/save-sheet-as-csv.ts, verbatim,
// followed by the article's "Later, in any agent execution" call. It cannot
// run as written: getSheet's rows are objects keyed by column in a
// { columns, rows } result, not arrays of cells in an array; fs is Node's
// (mcpcode offers writeFile from "mcpcode:fs", with paths relative to
// workspace/); and mcpcode skills are approved directories imported as
// "skills/<name>". See save-sheet-as-csv.adapted.ts.
import * as gdrive from './servers/google-drive';
export async function saveSheetAsCsv(sheetId: string) {
  const data = await gdrive.getSheet({ sheetId });
  const csv = data.map(row => row.join(',')).join('\n');
  await fs.writeFile(`./workspace/sheet-${sheetId}.csv`, csv);
  return `./workspace/sheet-${sheetId}.csv`;
}

const csvPath = await saveSheetAsCsv('abc123');
