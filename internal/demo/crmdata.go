package demo

import (
	"fmt"
	"strings"
	"time"
)

// Seeds of the data families. Changing one changes only that family's bytes.
const (
	seedCRM        = 0x5a1e5f02ce0001
	seedOrders     = 0x0bde25a5ee7002
	seedTranscript = 0x7a45c519700003
)

// Sizes of the synthetic CRM.
const (
	leadCount    = 300
	accountCount = 24
)

// FixedLeadID is the Lead that the article's scenario attaches the meeting
// transcript to. It always exists in the salesforce demo server.
const FixedLeadID = "00Q5f000001abcXYZ"

// record is one Salesforce record: canonical field name → value. Values are
// string, float64, bool or nil (JSON null), as they travel over the wire.
type record map[string]any

// sobject describes one Salesforce object type of the demo.
type sobject struct {
	Name     string
	IDPrefix string
	// Fields are the canonical field names, Id first, in display order.
	Fields []string
}

var (
	accountObject = sobject{"Account", "001", []string{
		"Id", "Name", "Type", "Industry", "Phone", "Website", "BillingCity",
		"AnnualRevenue", "NumberOfEmployees", "Description",
	}}
	contactObject = sobject{"Contact", "003", []string{
		"Id", "FirstName", "LastName", "Name", "Title", "AccountId", "Email", "Phone", "Description",
	}}
	leadObject = sobject{"Lead", "00Q", []string{
		"Id", "FirstName", "LastName", "Name", "Title", "Company", "Email", "Phone", "Status",
		"LeadSource", "Industry", "City", "CreatedDate", "Description", "Notes__c",
	}}
	opportunityObject = sobject{"Opportunity", "006", []string{
		"Id", "Name", "AccountId", "StageName", "Amount", "Probability", "CloseDate", "Description",
	}}
	// salesMeetingObject is the custom object of the article's first
	// example, updateRecord({objectType: 'SalesMeeting', recordId:
	// '00Q5f000001abcXYZ', data: {Notes: transcript}}): one record per Lead
	// discussed in the Q3 pipeline review (document abc123), whose Id is
	// that Lead's Id, as the article addresses it.
	salesMeetingObject = sobject{"SalesMeeting", "00Q", []string{
		"Id", "Name", "LeadId", "MeetingDate", "TranscriptDocumentId", "Notes",
	}}
	// sobjects is sorted by name so that listings are deterministic.
	sobjects = []sobject{accountObject, contactObject, leadObject, opportunityObject, salesMeetingObject}
)

// person is a fictional contact person at a company.
type person struct {
	First, Last, Title, Email, Phone string
	Company                          company
}

func (p person) fullName() string { return p.First + " " + p.Last }

// crmData is the immutable, shared CRM snapshot. Servers copy it before
// mutating (see newRecordStore). Ids are unique within an object type; a
// SalesMeeting shares its Id with its Lead.
type crmData struct {
	// records maps an object name to its records in creation order.
	records map[string][]record
	// leadPeople holds the person behind each Lead, index-aligned with
	// records["Lead"]; the orders sheet and the transcript reuse them.
	leadPeople []person
	leadIDs    []string
}

// crmGenerator carries the state needed while generating the CRM.
type crmGenerator struct {
	rng    *prng
	ids    map[string]bool
	emails map[string]bool
}

const idAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// newID returns a unique 17-character id shaped like FixedLeadID.
func (g *crmGenerator) newID(obj sobject) string {
	for {
		var b strings.Builder
		b.WriteString(obj.IDPrefix + "5f00000" + "1")
		for range 6 {
			b.WriteByte(idAlphabet[g.rng.intn(len(idAlphabet))])
		}
		id := b.String()
		if !g.ids[id] {
			g.ids[id] = true
			return id
		}
	}
}

// newPerson invents a person at c with a unique email address.
func (g *crmGenerator) newPerson(c company) person {
	p := person{
		First:   pick(g.rng, firstNames),
		Last:    pick(g.rng, lastNames),
		Title:   pick(g.rng, jobTitles),
		Company: c,
	}
	p.Phone = fakePhone(g.rng, c.AreaCode)
	local := strings.ToLower(p.First + "." + p.Last)
	p.Email = local + "@" + c.Domain
	for n := 2; g.emails[p.Email]; n++ {
		p.Email = fmt.Sprintf("%s%d@%s", local, n, c.Domain)
	}
	g.emails[p.Email] = true
	return p
}

// fakePhone returns a US number in the 555-0100..0199 range reserved for fiction.
func fakePhone(rng *prng, areaCode string) string {
	return fmt.Sprintf("(%s) 555-01%02d", areaCode, rng.intn(100))
}

// demoEpoch anchors every generated date: nothing depends on the clock.
var demoEpoch = time.Date(2025, time.January, 2, 9, 0, 0, 0, time.UTC)

func sfDateTime(t time.Time) string { return t.Format("2006-01-02T15:04:05.000+0000") }
func isoDate(t time.Time) string    { return t.Format("2006-01-02") }

// dollars formats integer cents as a sheet shows an amount: "12.50" for
// 1250 cents, "1234.50", "0.00" (no thousands separator, no currency).
func dollars(cents int) string { return fmt.Sprintf("%d.%02d", cents/100, cents%100) }

// buildCRM generates the whole CRM from seedCRM.
func buildCRM() *crmData {
	g := &crmGenerator{rng: newPRNG(seedCRM), ids: map[string]bool{FixedLeadID: true}, emails: map[string]bool{}}
	d := &crmData{records: map[string][]record{}}

	accountIDs := make([]string, accountCount)
	for i, c := range companies[:accountCount] {
		accountIDs[i] = g.newID(accountObject)
		kind := "Customer"
		if g.rng.percent(30) {
			kind = "Prospect"
		}
		d.records["Account"] = append(d.records["Account"], record{
			"Id": accountIDs[i], "Name": c.Name, "Type": kind, "Industry": c.Industry,
			"Phone": fakePhone(g.rng, c.AreaCode), "Website": "https://www." + c.Domain,
			"BillingCity": c.City, "AnnualRevenue": float64(g.rng.between(2, 900)) * 1e6,
			"NumberOfEmployees": float64(g.rng.between(40, 12000)), "Description": nil,
		})
	}

	for i, c := range companies[:accountCount] {
		for range g.rng.between(2, 3) {
			p := g.newPerson(c)
			d.records["Contact"] = append(d.records["Contact"], record{
				"Id": g.newID(contactObject), "FirstName": p.First, "LastName": p.Last,
				"Name": p.fullName(), "Title": p.Title, "AccountId": accountIDs[i],
				"Email": p.Email, "Phone": p.Phone, "Description": nil,
			})
		}
	}

	for i := range leadCount {
		var p person
		var id, status string
		if i == 0 {
			// The lead of the article's scenario: stable, memorable, and the
			// first customer discussed in the meeting transcript.
			p = person{First: "Maya", Last: "Okafor", Title: "Director of Operations",
				Email: "maya.okafor@harborview.example", Phone: "(206) 555-0142", Company: companies[0]}
			g.emails[p.Email] = true
			id, status = FixedLeadID, "Working - Contacted"
		} else {
			p = g.newPerson(pick(g.rng, companies))
			id, status = g.newID(leadObject), pick(g.rng, leadStatuses)
		}
		created := demoEpoch.Add(time.Duration(g.rng.intn(240*24*60)) * time.Minute)
		d.leadPeople = append(d.leadPeople, p)
		d.leadIDs = append(d.leadIDs, id)
		d.records["Lead"] = append(d.records["Lead"], record{
			"Id": id, "FirstName": p.First, "LastName": p.Last, "Name": p.fullName(),
			"Title": p.Title, "Company": p.Company.Name, "Email": p.Email, "Phone": p.Phone,
			"Status": status, "LeadSource": pick(g.rng, leadSources), "Industry": p.Company.Industry,
			"City": p.Company.City, "CreatedDate": sfDateTime(created), "Description": nil, "Notes__c": nil,
		})
	}

	for i, c := range companies[:accountCount] {
		for range g.rng.between(1, 2) {
			stageIdx := g.rng.intn(len(opportunityStages))
			prob := float64([]int{10, 20, 35, 50, 75, 100, 0}[stageIdx])
			item := pick(g.rng, products)
			closeDate := demoEpoch.AddDate(0, 0, g.rng.between(150, 360))
			d.records["Opportunity"] = append(d.records["Opportunity"], record{
				"Id": g.newID(opportunityObject), "Name": c.Name + " - " + item.Name + " rollout",
				"AccountId": accountIDs[i], "StageName": opportunityStages[stageIdx],
				"Amount": float64(g.rng.between(8, 240)) * 1000, "Probability": prob,
				"CloseDate": isoDate(closeDate), "Description": nil,
			})
		}
	}
	return d
}

// meetingDate is the day of the Q3 pipeline review (document abc123).
const meetingDate = "2025-09-18"

// addSalesMeetings adds a SalesMeeting record for each Lead discussed in the
// pipeline review, in the order of discussion (leads are indexes into
// crm.leadIDs). It runs while the dataset is built, before it is shared.
func addSalesMeetings(crm *crmData, leads []int) {
	for _, i := range leads {
		id := crm.leadIDs[i]
		crm.records["SalesMeeting"] = append(crm.records["SalesMeeting"], record{
			"Id": id, "Name": "Q3 pipeline review: " + crm.leadPeople[i].Company.Name,
			"LeadId": id, "MeetingDate": meetingDate, "TranscriptDocumentId": "abc123", "Notes": nil,
		})
	}
}
