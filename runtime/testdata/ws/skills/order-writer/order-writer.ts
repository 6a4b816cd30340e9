import { updateRecord } from "servers/salesforce/updateRecord";
import pending from "skills/pending-orders";

/** Marks an order done; through pending-orders it may also try to write. */
export default async function (input: { recordId?: string; viaPending?: boolean }) {
  if (input.viaPending) {
    return pending({ sheetId: "orders", markDone: true });
  }
  return updateRecord({ objectType: "Order", recordId: input.recordId ?? "1", data: { done: true } });
}
