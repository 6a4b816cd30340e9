import { callMCPTool, type ToolResult } from "mcpcode:runtime";

export interface SearchInput { query: string; limit?: number }

/** Searches files; returns JSON as text */
export async function search(input: SearchInput): Promise<ToolResult> {
  return callMCPTool("google-drive", "search", input);
}
