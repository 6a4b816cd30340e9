import { callMCPTool } from "mcpcode:runtime";

export async function updateRecord(input: { objectType: string; recordId: string; data: object }) {
  return callMCPTool("salesforce", "updateRecord", input);
}
