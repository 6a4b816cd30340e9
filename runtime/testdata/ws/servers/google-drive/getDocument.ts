// servers/google-drive/getDocument.ts — test fixture in the shape the generator writes.
import { callMCPTool } from "mcpcode:runtime";

export interface GetDocumentInput {
  /** The ID of the document to retrieve */
  documentId: string;
  /** Specific fields to return */
  fields?: string;
}

export interface GetDocumentOutput { title: string; content: string }

/** Retrieves a document from Google Drive */
export async function getDocument(input: GetDocumentInput): Promise<GetDocumentOutput> {
  return callMCPTool("google-drive", "getDocument", input);
}
