// Filter a 10,000-row sheet down to the pending orders: the rows stay in the
// program, five of them reach the model.
import { getSheet } from "servers/google-drive/getSheet";

const sheet = await getSheet({ sheetId: "abc123" });
const pending = sheet.rows.filter((row) => row["Status"] === "pending");
console.log(`Found ${pending.length} pending orders out of ${sheet.rows.length}`);
for (const row of pending.slice(0, 5)) {
  console.log(`${row["orderId"]}  ${row["name"]}  ${row["email"]}  ${row["amount"]}`);
}
export default { pending: pending.length, total: sheet.rows.length };
