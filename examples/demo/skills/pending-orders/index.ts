// Proposed as the skill "pending-orders": the orders of the order sheet in
// one status (pending by default), with the customers' contact details.
import { getSheet } from "servers/google-drive/getSheet";

interface Input {
  status?: string;
  limit?: number;
}

export default async function pendingOrders(input: Input = {}) {
  const status = input.status ?? "pending";
  const limit = input.limit ?? 5;
  const sheet = await getSheet({ sheetId: "abc123" });
  const rows = sheet.rows.filter((row) => row["Status"] === status);
  return {
    status,
    total: rows.length,
    orders: rows.slice(0, limit).map((row) => ({
      orderId: row["orderId"],
      name: row["name"],
      email: row["email"],
      phone: row["phone"],
      amount: row["amount"],
    })),
  };
}
