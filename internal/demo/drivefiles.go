package demo

// MIME types of the google-drive demo, as Google Drive reports them.
const (
	mimeDoc    = "application/vnd.google-apps.document"
	mimeSheet  = "application/vnd.google-apps.spreadsheet"
	mimeFolder = "application/vnd.google-apps.folder"
)

// driveFile is one entry of listFiles.
type driveFile struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	MimeType     string `json:"mimeType"`
	ModifiedTime string `json:"modifiedTime"`
}

// driveFiles is the fixed catalog, most recently modified first. As in the
// article, "abc123" names both the meeting document and the orders sheet.
var driveFiles = []driveFile{
	{"abc123", transcriptTitle, mimeDoc, "2025-09-18T23:12:40Z"},
	{"abc123", ordersTitle, mimeSheet, "2025-09-18T22:03:11Z"},
	{"efg123", "Weekly sales sync - notes", mimeDoc, "2025-09-17T17:45:02Z"},
	{"def456", targetsTitle, mimeSheet, "2025-09-15T08:30:00Z"},
	{"jkl012", "Deployment runbook", mimeDoc, "2025-09-12T19:20:55Z"},
	{"mno345", "Q3 board deck.pdf", "application/pdf", "2025-09-10T14:02:19Z"},
	{"stu901", "Pricing FAQ", mimeDoc, "2025-09-03T10:11:37Z"},
	{"ghi789", "Customer onboarding checklist", mimeDoc, "2025-08-28T09:00:00Z"},
	{"yza567", "Partner agreement draft.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "2025-08-21T16:44:08Z"},
	{"bcd890", "leads-import-2025-03.csv", "text/csv", "2025-08-14T12:30:45Z"},
	{"pqr678", "Customer contracts", mimeFolder, "2025-07-30T11:05:00Z"},
	{"vwx234", "team-offsite-2025.png", "image/png", "2025-07-02T18:22:31Z"},
}

// smallDocuments are the fixed Google Docs besides the transcript.
var smallDocuments = map[string]string{
	"efg123": `Weekly sales sync - notes
2025-09-17, attendees: Priya Raman, Marcus Bell, Sofia Alvarez, Tomas Ortega

- Harborview Analytics: Maya Okafor (maya.okafor@harborview.example, (206) 555-0142) wants the revised quote before the Q3 review.
- Northgate Logistics: security questionnaire sent back, waiting on legal.
- Reminder: attach meeting transcripts to the Lead record in Salesforce (Notes__c field).
- Next sync: 2025-09-24.
`,
	"jkl012": `Deployment runbook
1. Announce the deployment in Slack channel #deployments (C123456).
2. Run database migrations; the deploy bot posts "running migrations".
3. Wait for the bot to post "deployment complete" before announcing the release.
4. If anything fails, page the on-call engineer: Daniel Kim, (206) 555-0104.
`,
	"stu901": `Pricing FAQ
Q: What does an Analytics Seat cost? A: 49 USD per month, billed annually.
Q: Is there a multi-year discount? A: Up to 10 percent for three-year terms; approval by Priya Raman.
Q: Who answers pricing questions? A: Aisha Mensah, aisha.mensah@brightside.example.
`,
	"ghi789": `Customer onboarding checklist
[ ] Kickoff call scheduled by the customer success manager (Hannah Novak, (206) 555-0105)
[ ] Single sign-on configured with the customer's IT admin
[ ] Data connectors enabled and first sync verified
[ ] Dashboard Pack training delivered
[ ] 30-day health check booked
`,
}
