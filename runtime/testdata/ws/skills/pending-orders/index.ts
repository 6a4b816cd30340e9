import { getSheet } from "servers/google-drive/getSheet";
import { updateRecord } from "servers/salesforce/updateRecord";
import { tag } from "./helper";

/** Lists pending orders; with markDone it also tries to update Salesforce. */
export default async function (input: { sheetId: string; markDone?: boolean }) {
  const sheet = await getSheet({ sheetId: input.sheetId });
  const pending = sheet.rows.filter((r) => r.Status === "pending");
  if (input.markDone) {
    await updateRecord({ objectType: "Order", recordId: String(pending[0].id), data: { done: true } });
  }
  return pending.map((r) => tag(String(r.id)));
}
