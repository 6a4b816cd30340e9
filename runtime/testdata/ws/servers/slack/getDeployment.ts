import { callMCPTool } from "mcpcode:runtime";

export async function getDeployment(input: { id: string }): Promise<{ status: string }> {
  return callMCPTool("slack", "getDeployment", input);
}
