// Article snippet 5 adapted to mcpcode: fs is "mcpcode:fs" (paths relative
// to workspace/), and a row's cells are read in column order.
import * as gdrive from './servers/google-drive';
import * as fs from 'mcpcode:fs';
export async function saveSheetAsCsv(sheetId: string) {
  const data = await gdrive.getSheet({ sheetId });
  const csv = [data.columns, ...data.rows.map(row => data.columns.map(c => row[c]))].map(row => row.join(',')).join('\n');
  await fs.writeFile(`sheet-${sheetId}.csv`, csv);
  return `./workspace/sheet-${sheetId}.csv`;
}

const csvPath = await saveSheetAsCsv('abc123');
console.log(csvPath);
