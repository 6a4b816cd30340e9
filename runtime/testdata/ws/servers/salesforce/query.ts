import { callMCPTool } from "mcpcode:runtime";

export async function query(input: { soql: string }) {
  return callMCPTool("salesforce", "query", input);
}
