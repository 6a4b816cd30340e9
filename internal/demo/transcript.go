package demo

import (
	"fmt"
	"strconv"
	"strings"
)

// transcriptTitle is the title of document abc123.
const transcriptTitle = "Sales meeting — Q3 pipeline review"

// transcriptMinChars is the body size the transcript grows to: about 200 KB,
// roughly 50,000 tokens, the size the article uses to show what passing a
// document through the model's context costs.
const transcriptMinChars = 204_000

// transcriptSeconds is the meeting length: just under two hours.
const transcriptSeconds = 7140

// teamMember is a person at Brightside Data, the fictional seller whose
// sales team holds the meeting.
type teamMember struct {
	Name, Role, Email, Phone string
}

func (m teamMember) first() string { return strings.Fields(m.Name)[0] }

// salesTeam are the meeting's attendees. Index 0 chairs; 1, 2 and 5 are
// account executives.
var salesTeam = []teamMember{
	{"Priya Raman", "VP Sales", "priya.raman@brightside.example", "(206) 555-0101"},
	{"Marcus Bell", "Account Executive, West", "marcus.bell@brightside.example", "(206) 555-0102"},
	{"Sofia Alvarez", "Account Executive, Central", "sofia.alvarez@brightside.example", "(206) 555-0103"},
	{"Daniel Kim", "Sales Engineer", "daniel.kim@brightside.example", "(206) 555-0104"},
	{"Hannah Novak", "Customer Success Manager", "hannah.novak@brightside.example", "(206) 555-0105"},
	{"Tomas Ortega", "Account Executive, East", "tomas.ortega@brightside.example", "(206) 555-0106"},
	{"Aisha Mensah", "Sales Operations", "aisha.mensah@brightside.example", "(206) 555-0107"},
}

const (
	chair    = 0
	engineer = 3
	success  = 4
	salesOps = 6
)

var accountExecs = []int{1, 2, 5}

var competitors = []string{"Graphwell", "Metricly", "Insightline", "Tabula Cloud", "Ledgerlight"}

var weekdays = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday"}

// Sentence pools by role. Placeholders in braces are filled per customer.
var (
	execLines = []string{
		"We had a call with {contact_first} last {weekday} and the tone was really positive.",
		"{contact_first} confirmed the budget is approved for {qty} {product} licenses.",
		"The number we are working with is ${amount} a year, with a {pct} percent multi-year discount on the table.",
		"Best way to reach {contact_first} is the direct line, {phone}, ideally mornings before ten.",
		"I'll send the recap to {email} right after this meeting.",
		"They want to start with a pilot in the {city} office and expand from there.",
		"Their procurement team asked for a security questionnaire, which {se_first} is already filling in.",
		"Honestly the risk here is {competitor}, who came in about {pct} percent under us.",
		"We are in {stage} and I'd put the close date at {date}.",
		"{contact_first} mentioned they are consolidating three reporting tools into one, which is exactly our pitch.",
		"The legal review is on their side now; redlines should come back within {weeks} weeks.",
		"If anyone needs the contact, it's {contact}, {email}, {phone}.",
		"They asked whether the {product} works with their existing warehouse, and it does.",
		"I think we can get a signature before {date} if we hold the price.",
		"Their CFO joined the last call, which is a good sign.",
		"I logged all of this in Salesforce under the {company} lead.",
		"The champion is strong, but the economic buyer has not engaged yet.",
		"We ran the demo for eight people on their side and the questions were all about rollout.",
		"They want a reference from another {industry} customer before they commit.",
		"Usage in the trial went up every week, about {pct} percent week over week.",
		"{contact_first} is out next week, so the follow-up will slip to the week after.",
		"They already use {competitor} in one department and are not happy with the exports.",
		"The {city} team is the one pushing for this, the headquarters is more cautious.",
		"I asked {contact_first} to loop in their IT lead, and they agreed.",
		"We agreed to send a revised proposal with {qty} seats instead of the original number.",
	}
	chairLines = []string{
		"What's the single biggest risk on {company}?",
		"Do we have a mutual action plan with {contact_first}?",
		"Is ${amount} the committed number or the best case?",
		"Okay, let's keep {company} in commit for the quarter.",
		"I'd like to see that one move forward from {stage} by next week.",
		"Who owns the follow-up with {contact_first}?",
		"Can we get an executive sponsor call on the calendar?",
		"Let's not discount any further until we see the redlines.",
		"Good. {ops_first}, please make sure the forecast reflects that.",
		"How confident are you, honestly, on a scale of one to ten?",
		"Have we talked to anyone other than {contact_first} over there?",
		"That's helpful. Let's keep moving, we have a lot to get through today.",
		"What would it take to close {company} before {date}?",
		"Is {competitor} actually in the deal or just a price anchor?",
	}
	engineerLines = []string{
		"On the technical side, the {product} integration test passed in their staging environment.",
		"I'll need an admin contact for the single sign-on setup, either {contact_first} or someone on their IT team.",
		"Their data volume is around {qty} million rows a day, which is well within our limits.",
		"I sent the architecture diagram to {email} on {weekday}.",
		"The security questionnaire is {pct} percent done; the remaining questions are about data residency.",
		"They asked for a sandbox, and I can have one ready in {weeks} weeks.",
		"The proof-of-concept dashboards are built, I just need feedback from {contact_first}.",
		"Their warehouse is on an older version, so we'd use the {product} path for the first phase.",
	}
	successLines = []string{
		"From the customer success side, onboarding for {company} would take about {weeks} weeks.",
		"I can set up a kickoff with {contact_first} once the order is signed; I'll call {phone} to schedule it.",
		"Their support tickets last quarter were mostly about exports, and all of them are resolved.",
		"We should include the {product} training in the first month.",
		"Adoption looks healthy, about {pct} percent of licensed seats are active.",
		"I'd like to be on the next call with {contact_first} to talk about the rollout plan.",
	}
	opsLines = []string{
		"Noted. I've updated the forecast for {company} to ${amount}.",
		"Quick reminder that the close date in Salesforce still says {date}; please update it if it moved.",
		"Action item: {ae_first} to send {contact_first} the revised quote at {email}.",
		"I'll add {contact} with {phone} to the contact record, it was missing.",
		"That opportunity is still missing a next step in Salesforce.",
		"For the record, the lead source for {company} was {source}.",
	}
	fillerLines = []string{
		"Sorry, you cut out for a second there.",
		"Can everyone see my screen?",
		"Agreed.",
		"Let me pull that up.",
		"Good point.",
		"Yes, exactly.",
		"Go ahead, sorry.",
		"One more thing on that.",
		"Okay.",
		"Makes sense.",
	}
)

// turn is one speaker turn before timestamps are assigned.
type turn struct{ speaker, text string }

// transcriptWriter accumulates turns and their total size.
type transcriptWriter struct {
	rng   *prng
	turns []turn
	chars int
}

func (w *transcriptWriter) say(speaker int, text string) {
	name := salesTeam[speaker].Name
	w.turns = append(w.turns, turn{name, text})
	w.chars += len(name) + len(text) + len("[00:00:00] : \n")
}

// sentences joins n different sentences from pool (n ≤ len(pool)), filled
// with vars.
func (w *transcriptWriter) sentences(pool []string, n int, vars map[string]string) string {
	order := make([]int, len(pool))
	for i := range order {
		order[i] = i
	}
	parts := make([]string, 0, n)
	for i := range n { // partial Fisher–Yates shuffle: no sentence twice per turn
		j := i + w.rng.intn(len(order)-i)
		order[i], order[j] = order[j], order[i]
		parts = append(parts, fillTemplate(pool[order[i]], vars))
	}
	return strings.Join(parts, " ")
}

// fillTemplate replaces each {key} in tmpl with vars[key]. Unknown keys are
// kept verbatim so a typo shows up in the output instead of vanishing.
func fillTemplate(tmpl string, vars map[string]string) string {
	var b strings.Builder
	for {
		open := strings.IndexByte(tmpl, '{')
		if open < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		end := strings.IndexByte(tmpl[open:], '}')
		if end < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		key := tmpl[open+1 : open+end]
		b.WriteString(tmpl[:open])
		if v, ok := vars[key]; ok {
			b.WriteString(v)
		} else {
			b.WriteString(tmpl[open : open+end+1])
		}
		tmpl = tmpl[open+end+1:]
	}
}

// withThousands formats n as 84,000.
func withThousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// buildTranscript generates document abc123's content: a two-hour pipeline
// review in which the team walks through customers taken from the CRM's
// Leads (Lead 0, FixedLeadID, first), quoting their emails and phone
// numbers. It also returns the Leads discussed (indexes into crm.leadIDs),
// in order of first discussion.
func buildTranscript(crm *crmData) (string, []int) {
	w := &transcriptWriter{rng: newPRNG(seedTranscript)}
	w.say(chair, "Okay, let's get started. Thanks everyone for joining the Q3 pipeline review. "+
		"We have a long list today, so I'd like to keep each account to a few minutes.")
	w.say(salesOps, "The forecast sheet is up to date as of this morning, and the Salesforce export is in the shared drive.")
	w.say(chair, "Great. Same order as always: West, Central, East, then the renewals. Marcus, you're first.")

	customers := meetingCustomers(w.rng, crm)
	var discussed []int
	for i := 0; w.chars < transcriptMinChars; i++ {
		lead := customers[i%len(customers)]
		if i < len(customers) {
			discussed = append(discussed, lead)
		}
		w.customerSegment(crm.leadPeople[lead], crm.records["Lead"][lead], i)
	}

	w.say(chair, "That's the list. Thanks, everyone, this was a long one.")
	w.say(salesOps, "I'll send the action items to the team alias tonight and update every opportunity we touched.")
	w.say(chair, "Perfect. Same time next week. Please have your close dates cleaned up before then.")
	return renderTranscript(w.turns, w.chars), discussed
}

// meetingCustomers orders the leads discussed: Lead 0 first, then one lead
// per company in pseudo-random order.
func meetingCustomers(rng *prng, crm *crmData) []int {
	order := []int{0}
	seen := map[string]bool{crm.leadPeople[0].Company.Name: true}
	for range len(crm.leadIDs) * 2 {
		i := 1 + rng.intn(len(crm.leadIDs)-1)
		if c := crm.leadPeople[i].Company.Name; !seen[c] {
			seen[c] = true
			order = append(order, i)
		}
	}
	return order
}

// customerSegment writes the discussion of one customer.
func (w *transcriptWriter) customerSegment(p person, lead record, n int) {
	rng := w.rng
	ae := accountExecs[n%len(accountExecs)]
	vars := map[string]string{
		"company": p.Company.Name, "industry": strings.ToLower(p.Company.Industry), "city": p.Company.City,
		"contact": p.fullName(), "contact_first": p.First, "title": p.Title, "email": p.Email, "phone": p.Phone,
		"product": pick(rng, products).Name, "qty": strconv.Itoa(rng.between(5, 400)),
		"amount": withThousands(rng.between(12, 480) * 1000), "stage": pick(rng, opportunityStages[:5]),
		"date":       isoDate(demoEpoch.AddDate(0, 0, rng.between(280, 360))),
		"competitor": pick(rng, competitors), "pct": strconv.Itoa(rng.between(5, 40)),
		"weeks": strconv.Itoa(rng.between(2, 8)), "weekday": pick(rng, weekdays),
		"ae_first": salesTeam[ae].first(), "se_first": salesTeam[engineer].first(),
		"ops_first": salesTeam[salesOps].first(), "source": fmt.Sprint(lead["LeadSource"]),
	}
	w.say(chair, fillTemplate("{ae_first}, take us through {company}.", vars))
	w.say(ae, fillTemplate("Sure. {company} is a {industry} company based in {city}. "+
		"Our main contact is {contact}, {title}; email {email}, phone {phone}.", vars))
	for range rng.between(14, 26) {
		switch r := rng.intn(100); {
		case r < 48:
			w.say(ae, w.sentences(execLines, rng.between(2, 4), vars))
		case r < 64:
			w.say(chair, w.sentences(chairLines, rng.between(1, 2), vars))
		case r < 74:
			w.say(engineer, w.sentences(engineerLines, rng.between(1, 3), vars))
		case r < 83:
			w.say(success, w.sentences(successLines, rng.between(1, 2), vars))
		case r < 92:
			w.say(salesOps, w.sentences(opsLines, rng.between(1, 2), vars))
		default:
			w.say(rng.intn(len(salesTeam)), pick(rng, fillerLines))
		}
	}
	w.say(salesOps, fillTemplate("Action item: {ae_first} to follow up with {contact_first} at {email} and update the {company} record.", vars))
}

// renderTranscript prints the header and the turns with timestamps spread
// over transcriptSeconds in proportion to how much was said.
func renderTranscript(turns []turn, totalChars int) string {
	var b strings.Builder
	b.Grow(totalChars + 1024)
	b.WriteString(transcriptTitle + "\n")
	b.WriteString("Brightside Data weekly pipeline meeting, 2025-09-18, 14:00-16:00 PT (auto-generated recording transcript)\n")
	b.WriteString("Attendees: ")
	for i, m := range salesTeam {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(m.Name + " (" + m.Role + ")")
	}
	b.WriteString("\nNote: synthetic demo data generated by mcpcode; every person, company, email address and phone number is fictional.\n\n")

	cum, last := 0, -1
	for _, t := range turns {
		sec := 5 + cum*(transcriptSeconds-5)/totalChars
		if sec <= last {
			sec = last + 1
		}
		last = sec
		fmt.Fprintf(&b, "[%02d:%02d:%02d] %s: %s\n", sec/3600, sec/60%60, sec%60, t.speaker, t.text)
		cum += len(t.speaker) + len(t.text) + len("[00:00:00] : \n")
	}
	return b.String()
}
