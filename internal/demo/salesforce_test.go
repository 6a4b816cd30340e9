package demo

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

type queryOut struct {
	Records   []map[string]any `json:"records"`
	TotalSize int              `json:"totalSize"`
}

func TestQuery(t *testing.T) {
	cs := connect(t, "salesforce")
	tests := []struct {
		name      string
		query     string
		wantCount int                                       // -1: at least one
		check     func(t *testing.T, recs []map[string]any) // optional
	}{
		{"all leads", "SELECT Id, Name FROM Lead", leadCount, nil},
		{"lowercase keywords and names", "select id, name, email from lead where id = '00Q5f000001abcXYZ'", 1,
			func(t *testing.T, recs []map[string]any) {
				want := map[string]any{"Id": FixedLeadID, "Name": "Maya Okafor", "Email": "maya.okafor@harborview.example"}
				if !mapsEqual(recs[0], want) {
					t.Errorf("record = %v, want %v", recs[0], want)
				}
			}},
		{"AND, case-insensitive string equality", "SELECT Name FROM Lead WHERE Company = 'harborview analytics' AND Status = 'Working - Contacted'", -1,
			func(t *testing.T, recs []map[string]any) {
				if !slices.ContainsFunc(recs, func(r map[string]any) bool { return r["Id"] == FixedLeadID }) {
					t.Errorf("Maya Okafor's lead is missing: %v", recs)
				}
			}},
		{"LIKE prefix", "SELECT Email FROM Lead WHERE Email LIKE 'MAYA.%'", -1,
			func(t *testing.T, recs []map[string]any) {
				for _, r := range recs {
					if !strings.HasPrefix(r["Email"].(string), "maya.") {
						t.Errorf("%v does not match maya.%%", r["Email"])
					}
				}
			}},
		{"Id is returned without being selected", "SELECT Name FROM Account LIMIT 1", 1,
			func(t *testing.T, recs []map[string]any) {
				if len(recs[0]) != 2 || recs[0]["Id"] == nil || recs[0]["Name"] == nil {
					t.Errorf("record = %v, want exactly Id and Name", recs[0])
				}
			}},
		{"ORDER BY DESC with LIMIT", "SELECT Name FROM Lead ORDER BY Name DESC LIMIT 5", 5,
			func(t *testing.T, recs []map[string]any) {
				if !slices.IsSortedFunc(recs, func(a, b map[string]any) int {
					return strings.Compare(strings.ToLower(b["Name"].(string)), strings.ToLower(a["Name"].(string)))
				}) {
					t.Errorf("not sorted by Name descending: %v", recs)
				}
			}},
		{"numeric comparison and ORDER BY", "SELECT Name, Amount FROM Opportunity WHERE Amount > 100000 ORDER BY Amount", -1,
			func(t *testing.T, recs []map[string]any) {
				last := 100000.0
				for _, r := range recs {
					a := r["Amount"].(float64)
					if a <= 100000 || a < last {
						t.Errorf("amounts not > 100000 ascending: %v", recs)
						return
					}
					last = a
				}
			}},
		{"null comparison", "SELECT Id FROM Lead WHERE Notes__c = null", leadCount, nil},
		{"LIMIT 0", "SELECT Id FROM Contact LIMIT 0", 0, nil},
		{"contacts", "SELECT Name, Email, Phone, AccountId FROM Contact", -1, nil},
		{"opportunities by stage", "SELECT Name FROM Opportunity WHERE StageName != 'Closed Lost'", -1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got queryOut
			text := callOK(t, cs, "query", map[string]any{"query": tt.query}, &got)
			if !strings.Contains(text, `"records":[`) {
				t.Errorf("records must be an array: %.200s", text)
			}
			if got.TotalSize != len(got.Records) {
				t.Errorf("totalSize = %d, but %d records", got.TotalSize, len(got.Records))
			}
			if tt.wantCount >= 0 && len(got.Records) != tt.wantCount || tt.wantCount < 0 && len(got.Records) == 0 {
				t.Fatalf("got %d records, want %d (-1: some)", len(got.Records), tt.wantCount)
			}
			if tt.check != nil {
				tt.check(t, got.Records)
			}
		})
	}
}

func mapsEqual(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestQueryErrors(t *testing.T) {
	cs := connect(t, "salesforce")
	tests := []struct {
		query string
		want  string
		// syntax errors also restate the supported subset
		syntax bool
	}{
		{"DELETE FROM Lead", "expected SELECT", true},
		{"SELECT FROM Lead", "expected a field name", true},
		{"SELECT Id Lead", "expected FROM", true},
		{"SELECT * FROM Lead", "SELECT * is not SOQL", true},
		{"SELECT Id FROM Lead WHERE Name = 'a' OR Name = 'b'", "OR is not supported", true},
		{"SELECT Id FROM Lead WHERE Name = 'unterminated", "not closed", true},
		{"SELECT Id FROM Lead WHERE Name = \"x\"", "single quotes", true},
		{"SELECT Id FROM Lead WHERE Name LIKE 5", "LIKE needs a quoted pattern", true},
		{"SELECT Id FROM Lead WHERE Name", "expected an operator", true},
		{"SELECT Id FROM Lead WHERE Name =", "expected a value", true},
		{"SELECT Id FROM Lead LIMIT -1", "LIMIT takes a whole number", true},
		{"SELECT Id FROM Lead LIMIT ten", "LIMIT takes a whole number", true},
		{"SELECT Account.Name FROM Contact", "relationship fields", true},
		{"SELECT COUNT() FROM Lead", "functions", true},
		{"SELECT Id FROM Lead WHERE Status IN ('a')", "IN is not supported", true},
		{"SELECT Id FROM Lead ORDER BY", "expected a field name", true},
		{"SELECT Id FROM Lead extra", `unexpected "extra"`, true},
		{"SELECT Id FROM Lead WHERE Name = 'a' ; DROP", "unexpected character", true},
		{"", "expected SELECT", true},
		{"SELECT Id FROM Widget", "supported objects: Account, Contact, Lead, Opportunity", false},
		{"SELECT Bogus FROM Lead", `no field "Bogus" on Lead; its fields are Id, FirstName`, false},
		{"SELECT Id FROM Lead WHERE Bogus = 1", `no field "Bogus" on Lead`, false},
		{"SELECT Id FROM Lead ORDER BY Bogus", `no field "Bogus" on Lead`, false},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			want := []string{tt.want}
			if tt.syntax {
				want = append(want, "malformed query at character", "supported: SELECT")
			}
			callErr(t, cs, "query", map[string]any{"query": tt.query}, want...)
		})
	}
}

func TestGetRecord(t *testing.T) {
	cs := connect(t, "salesforce")
	tests := []struct {
		objectType, id string
		want           map[string]any
	}{
		{"Lead", FixedLeadID, map[string]any{"Name": "Maya Okafor", "Company": "Harborview Analytics", "Phone": "(206) 555-0142", "Notes__c": nil}},
		{"lead", FixedLeadID, map[string]any{"Id": FixedLeadID}},
	}
	for _, tt := range tests {
		t.Run(tt.objectType, func(t *testing.T) {
			var got map[string]any
			callOK(t, cs, "getRecord", map[string]any{"objectType": tt.objectType, "recordId": tt.id}, &got)
			for k, v := range tt.want {
				if have, ok := got[k]; !ok || have != v {
					t.Errorf("%s = %v (present %v), want %v", k, have, ok, v)
				}
			}
			if len(got) != len(leadObject.Fields) {
				t.Errorf("got %d fields, want all %d Lead fields", len(got), len(leadObject.Fields))
			}
		})
	}
}

func TestGetRecordErrors(t *testing.T) {
	cs := connect(t, "salesforce")
	var contacts queryOut
	callOK(t, cs, "query", map[string]any{"query": "SELECT Id FROM Contact LIMIT 1"}, &contacts)
	contactID := contacts.Records[0]["Id"].(string)
	tests := []struct {
		objectType, id string
		want           []string
	}{
		{"Widget", FixedLeadID, []string{`unknown object type "Widget"`, "Account, Contact, Lead, Opportunity"}},
		{"Lead", "00Q000000000000", []string{`no Lead with id "00Q000000000000"`, "SELECT Id, Name FROM Lead"}},
		{"Lead", contactID, []string{"is a Contact, not a Lead"}},
	}
	for _, tt := range tests {
		t.Run(tt.objectType+"/"+tt.id, func(t *testing.T) {
			callErr(t, cs, "getRecord", map[string]any{"objectType": tt.objectType, "recordId": tt.id}, tt.want...)
		})
	}
}

// TestSheetIDsResolve checks that every salesforceId of the orders sheet is
// a Lead of the salesforce server, with the same name and email.
func TestSheetIDsResolve(t *testing.T) {
	_, sheet := fetchOrders(t)
	type person struct{ name, email string }
	leads := map[string]person{}
	for _, row := range sheet.Rows {
		leads[row["salesforceId"].(string)] = person{row["name"].(string), row["email"].(string)}
	}
	if len(leads) < 100 {
		t.Fatalf("only %d distinct salesforceIds in 10,000 rows", len(leads))
	}
	cs := connect(t, "salesforce")
	ids := slices.Sorted(func(yield func(string) bool) {
		for id := range leads {
			if !yield(id) {
				return
			}
		}
	})
	for _, id := range ids {
		var rec map[string]any
		callOK(t, cs, "getRecord", map[string]any{"objectType": "Lead", "recordId": id}, &rec)
		if want := leads[id]; rec["Name"] != want.name || rec["Email"] != want.email {
			t.Errorf("lead %s is %v <%v>, sheet says %s <%s>", id, rec["Name"], rec["Email"], want.name, want.email)
		}
	}
}

func TestUpdateRecordPersists(t *testing.T) {
	cs := connect(t, "salesforce")
	transcript := strings.Repeat("[00:00:01] Priya Raman: notes\n", 7000) // ~200 KB, like the article
	tests := []struct {
		name  string
		data  map[string]any
		query string         // must return the lead after the update
		want  map[string]any // fields of getRecord after the update
	}{
		{"attach transcript", map[string]any{"Notes__c": transcript},
			"SELECT Id FROM Lead WHERE Notes__c != null", map[string]any{"Notes__c": transcript}},
		{"description and status", map[string]any{"Description": "met at the Q3 review", "Status": "Closed - Converted"},
			"SELECT Id FROM Lead WHERE Status = 'Closed - Converted' AND Description LIKE '%q3%'",
			map[string]any{"Description": "met at the Q3 review", "Status": "Closed - Converted"}},
		{"name follows first name", map[string]any{"FirstName": "Maia"},
			"SELECT Id FROM Lead WHERE Name = 'Maia Okafor'", map[string]any{"Name": "Maia Okafor"}},
		{"Name sets first and last name (the article's PII example)", map[string]any{"Name": "  Maya  J. Okafor-Reyes "},
			"SELECT Id FROM Lead WHERE LastName = 'Okafor-Reyes'", map[string]any{"Name": "Maya J. Okafor-Reyes", "FirstName": "Maya J.", "LastName": "Okafor-Reyes"}},
		{"new custom field", map[string]any{"Priority__c": 2.0},
			"SELECT Id, Priority__c FROM Lead WHERE Priority__c >= 2", map[string]any{"Priority__c": 2.0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var res map[string]any
			callOK(t, cs, "updateRecord", map[string]any{"objectType": "Lead", "recordId": FixedLeadID, "data": tt.data}, &res)
			if res["id"] != FixedLeadID || res["success"] != true {
				t.Errorf("updateRecord = %v, want id %s and success true", res, FixedLeadID)
			}
			var rec map[string]any
			callOK(t, cs, "getRecord", map[string]any{"objectType": "Lead", "recordId": FixedLeadID}, &rec)
			for k, v := range tt.want {
				if rec[k] != v {
					t.Errorf("after update %s = %.80v, want %.80v", k, rec[k], v)
				}
			}
			var q queryOut
			callOK(t, cs, "query", map[string]any{"query": tt.query}, &q)
			if !slices.ContainsFunc(q.Records, func(r map[string]any) bool { return r["Id"] == FixedLeadID }) {
				t.Errorf("%s does not return the updated lead", tt.query)
			}
		})
	}

	t.Run("a fresh server starts from the original data", func(t *testing.T) {
		var rec map[string]any
		callOK(t, connect(t, "salesforce"), "getRecord", map[string]any{"objectType": "Lead", "recordId": FixedLeadID}, &rec)
		if rec["Notes__c"] != nil || rec["Name"] != "Maya Okafor" {
			t.Errorf("fresh server sees earlier updates: Notes__c %.40v, Name %v", rec["Notes__c"], rec["Name"])
		}
	})
}

func TestUpdateRecordErrors(t *testing.T) {
	cs := connect(t, "salesforce")
	tests := []struct {
		name       string
		objectType string
		id         string
		data       map[string]any
		want       []string
	}{
		{"empty data", "Lead", FixedLeadID, map[string]any{}, []string{"data is empty"}},
		{"unknown field", "Lead", FixedLeadID, map[string]any{"Bogus": "x", "Description": "kept?"}, []string{`no field "Bogus" on Lead`, "__c"}},
		{"Id", "Lead", FixedLeadID, map[string]any{"Id": "x"}, []string{"Id field cannot be changed"}},
		{"Name with FirstName", "Lead", FixedLeadID, map[string]any{"Name": "Ann Lee", "firstname": "Ann"}, []string{"set either Name or the two parts"}},
		{"empty Name", "Lead", FixedLeadID, map[string]any{"Name": " "}, []string{"non-empty string"}},
		{"Name not a string", "Lead", FixedLeadID, map[string]any{"Name": 5}, []string{"non-empty string"}},
		{"lead id as a Contact", "Contact", FixedLeadID, map[string]any{"Name": "x"}, []string{"is a Lead and a SalesMeeting, not a Contact", `objectType "Lead"`}},
		{"SalesMeeting of a lead not in the meeting", "SalesMeeting", "00Qnope", map[string]any{"Notes": "x"}, []string{`no SalesMeeting with id "00Qnope"`}},
		{"object value", "Lead", FixedLeadID, map[string]any{"Description": map[string]any{"a": 1}}, []string{"string, number, boolean or null"}},
		{"unknown record", "Lead", "00Qnope", map[string]any{"Description": "x"}, []string{`no Lead with id "00Qnope"`}},
		{"unknown object type", "Case", FixedLeadID, map[string]any{"Description": "x"}, []string{`unknown object type "Case"`}},
		{"missing data", "Lead", FixedLeadID, nil, []string{"data"}},
		{"same new field twice", "Lead", FixedLeadID, map[string]any{"Score__c": 1, "score__c": 2}, []string{"twice"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := map[string]any{"objectType": tt.objectType, "recordId": tt.id}
			if tt.data != nil {
				args["data"] = tt.data
			}
			callErr(t, cs, "updateRecord", args, tt.want...)
		})
	}
	// A rejected update changes nothing, not even its valid fields.
	var rec map[string]any
	callOK(t, cs, "getRecord", map[string]any{"objectType": "Lead", "recordId": FixedLeadID}, &rec)
	if rec["Description"] != nil {
		t.Errorf("Description = %v after rejected updates, want null", rec["Description"])
	}
}

// TestSalesMeeting checks the object of the article's first example: the
// SalesMeeting 00Q5f000001abcXYZ exists, takes Notes, and only the Leads
// discussed in the Q3 pipeline review have one.
func TestSalesMeeting(t *testing.T) {
	cs := connect(t, "salesforce")
	var rec map[string]any
	callOK(t, cs, "getRecord", map[string]any{"objectType": "SalesMeeting", "recordId": FixedLeadID}, &rec)
	want := map[string]any{"Id": FixedLeadID, "LeadId": FixedLeadID, "Name": "Q3 pipeline review: Harborview Analytics", "MeetingDate": meetingDate, "TranscriptDocumentId": "abc123", "Notes": nil}
	if !reflect.DeepEqual(rec, want) {
		t.Errorf("SalesMeeting %s = %v, want %v", FixedLeadID, rec, want)
	}
	var res map[string]any
	callOK(t, cs, "updateRecord", map[string]any{"objectType": "SalesMeeting", "recordId": FixedLeadID, "data": map[string]any{"Notes": "[00:00:01] Priya Raman: ..."}}, &res)
	var q queryOut
	callOK(t, cs, "query", map[string]any{"query": "SELECT Name, Notes FROM SalesMeeting WHERE Notes != null"}, &q)
	if len(q.Records) != 1 || q.Records[0]["Id"] != FixedLeadID || q.Records[0]["Notes"] != "[00:00:01] Priya Raman: ..." {
		t.Errorf("SalesMeetings with notes: %v", q.Records)
	}
	// The Lead of the same Id is a different record.
	var lead map[string]any
	callOK(t, cs, "getRecord", map[string]any{"objectType": "Lead", "recordId": FixedLeadID}, &lead)
	if _, ok := lead["Notes"]; ok || lead["Notes__c"] != nil || lead["Name"] != "Maya Okafor" {
		t.Errorf("the Lead changed with its SalesMeeting: %v", lead)
	}
	// Every SalesMeeting is a Lead discussed in the transcript.
	callOK(t, cs, "query", map[string]any{"query": "SELECT Name, LeadId FROM SalesMeeting"}, &q)
	transcript := sharedData().documents["abc123"].Content
	if len(q.Records) < 10 {
		t.Fatalf("only %d SalesMeetings", len(q.Records))
	}
	for _, m := range q.Records {
		var lead map[string]any
		callOK(t, cs, "getRecord", map[string]any{"objectType": "Lead", "recordId": m["LeadId"]}, &lead)
		if m["Id"] != m["LeadId"] || !strings.Contains(transcript, lead["Company"].(string)) || !strings.HasSuffix(m["Name"].(string), lead["Company"].(string)) {
			t.Errorf("SalesMeeting %v does not match its Lead %v or the transcript", m, lead["Company"])
		}
	}
}
