// Copy the two-hour sales-meeting transcript from Google Drive into the
// Salesforce lead. The transcript (about 50,000 tokens) goes from one tool
// straight into the other: it never passes through the model's context.
import { getDocument } from "servers/google-drive/getDocument";
import { updateRecord } from "servers/salesforce/updateRecord";

const doc = await getDocument({ documentId: "abc123" });
const update = await updateRecord({
  objectType: "Lead",
  recordId: "00Q5f000001abcXYZ",
  data: { Notes__c: doc.content },
});
console.log(`Attached "${doc.title}" (${doc.content?.length ?? 0} characters) to lead ${update.id}`);
export default { lead: update.id, success: update.success };
