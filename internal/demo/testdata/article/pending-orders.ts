// Article snippet 2, "With code execution - filter in the execution
// environment", verbatim. It cannot run as written: the article treats
// getSheet's result as the array of rows, while the demo's getSheet (like
// the article's own PII and skill snippets, which use sheet.rows and rows
// of cells) returns { sheetId, title, columns, rows }. See
// pending-orders.adapted.ts.
import * as gdrive from './servers/google-drive';

const allRows = await gdrive.getSheet({ sheetId: 'abc123' });
const pendingOrders = allRows.filter(row => 
  row["Status"] === 'pending'
);
console.log(`Found ${pendingOrders.length} pending orders`);
console.log(pendingOrders.slice(0, 5)); // Only log first 5 for review
