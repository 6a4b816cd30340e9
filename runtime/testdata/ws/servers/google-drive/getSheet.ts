import { callMCPTool } from "mcpcode:runtime";

export interface GetSheetInput { sheetId: string; limit?: number }
export interface GetSheetOutput { rows: { [key: string]: unknown }[] }

/** Reads the rows of a sheet */
export async function getSheet(input: GetSheetInput): Promise<GetSheetOutput> {
  return callMCPTool("google-drive", "getSheet", input);
}
