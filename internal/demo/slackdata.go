package demo

import (
	"fmt"
	"strings"
)

const seedSlack = 0x51ac4000000004

// slackEpoch is the logical time of the first seeded message
// (2025-09-16T09:00:00Z); nothing reads the clock.
const slackEpoch = 1758013200

// handle is a person's Slack user name, such as priya.raman.
func handle(m teamMember) string { return strings.ToLower(strings.ReplaceAll(m.Name, " ", ".")) }

// newSlackWorkspace seeds the three channels with deterministic history and
// scripts the deployment that completes on the third read of C123456.
func newSlackWorkspace() *slackWorkspace {
	rng := newPRNG(seedSlack)
	w := &slackWorkspace{clock: slackEpoch}
	deploys := &slackChannel{id: deployChannelID, name: "deployments"}
	sales := &slackChannel{id: "C234567", name: "sales"}
	general := &slackChannel{id: "C345678", name: "general"}
	w.channels = []*slackChannel{deploys, sales, general}

	// seed posts text after a pseudo-random pause of one to ninety minutes.
	seed := func(c *slackChannel, user, text string) {
		w.clock += int64(rng.between(60, 5400))
		w.post(c, user, text)
	}
	engineer := handle(salesTeam[3])
	for minor := 0; minor <= 4; minor++ {
		version := fmt.Sprintf("api v2.13.%d", minor)
		seed(deploys, "deploy-bot", "deploy of "+version+" to staging started by "+engineer)
		seed(deploys, "deploy-bot", "staging smoke tests passed (48/48)")
		seed(deploys, engineer, "promoting "+version+" to production")
		seed(deploys, "deploy-bot", "release "+version+" finished: all services healthy")
		if minor%2 == 1 {
			seed(deploys, handle(salesTeam[0]), "thanks! closing the change ticket")
		}
	}

	crm := sharedData().crm
	templates := []string{
		"Great call with {contact} ({company}) today, sending the follow-up to {email}",
		"Anyone have a warm intro at {company}? {contact} has gone quiet, last number I had is {phone}",
		"{company} signed the order form, thanks everyone who helped",
		"Heads up: {contact} from {company} asked for a pricing call, number is {phone}",
		"Logged the {company} meeting notes on the lead in Salesforce",
	}
	for range 18 {
		lead := rng.intn(len(crm.leadPeople))
		p := crm.leadPeople[lead]
		text := fillTemplate(pick(rng, templates), map[string]string{
			"contact": p.fullName(), "company": p.Company.Name, "email": p.Email, "phone": p.Phone,
		})
		seed(sales, handle(salesTeam[accountExecs[rng.intn(len(accountExecs))]]), text)
	}
	seed(sales, handle(salesTeam[0]), "Reminder: Q3 pipeline review Thursday 14:00 PT, transcript will be in the shared drive")

	for _, text := range []string{
		"Welcome to Brightside Data's demo workspace! Everything here is synthetic.",
		"Office is closed on Monday for maintenance",
		"Lunch and learn on Thursday: SOQL tips from Aisha",
		"The team offsite photos are in the drive (team-offsite-2025.png)",
		"Please update your laptop before Friday",
	} {
		seed(general, handle(pick(rng, salesTeam)), text)
	}

	deploys.script = []scriptedMessage{
		{1, handle(salesTeam[1]), "kicking off the api v2.14.0 production deploy"},
		{1, "deploy-bot", "deployment started: api v2.14.0 to production (triggered by " + handle(salesTeam[1]) + ")"},
		{2, "deploy-bot", "running migrations: 3 of 7 applied"},
		{3, "deploy-bot", "migrations finished; health checks passing on 12/12 instances"},
		{3, "deploy-bot", "deployment complete: api v2.14.0 is live in production"},
	}
	w.clock += 3600 // the live deploy starts an hour after the last seeded message
	return w
}
