package skills

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden cards in testdata/cards")

// golden compares got with testdata/cards/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "cards", name)
	if *update {
		writeFile(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (create it with: go test ./skills -run %s -update)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s is stale; got:\n%s\n(refresh with: go test ./skills -run %s -update)", path, got, t.Name())
	}
}

const readLead = `import { getRecord } from "servers/salesforce/getRecord";

export default async function (input: { id: string }) {
  const lead = await getRecord({ objectType: "Lead", recordId: input.id });
  return lead.Status;
}
`

// checkedTS is a proposal's record of a type check.
var checkedTS = &TypeCheck{Compiler: "TypeScript 7.0.2", Tree: "5e2b4c1d9a7f3e8b6c0d2a4f1e9b7c5d3a8f6e4b2c0d9a7f5e3b1c8d6a4f2e0b"}

// TestMarkdownCardGolden pins the Markdown card of a proposal, of an
// approved skill, and the re-approval cards: a new version that adds a
// write tool, and one whose recorded example's result (and input schema)
// changed. The terminal card of the first re-approval is pinned too.
func TestMarkdownCardGolden(t *testing.T) {
	t.Run("proposal", func(t *testing.T) {
		w := demoWorkspace(t)
		_, err := w.Propose(ProposeOptions{Name: "pending-ids", Description: "Lists the ids of orders in a status.", Rationale: "Asked for every Monday.",
			InputSchema: []byte(`{"type":"object","properties":{"status":{"type":"string","enum":["pending","shipped"]}}}`), Program: []byte(readSheet), Now: fixedNow,
			TypeCheck: checkedTS})
		if err != nil {
			t.Fatal(err)
		}
		card, err := w.Show("pending-ids")
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "proposal.md", card.Markdown(MarkdownOptions{}))
	})

	t.Run("approved", func(t *testing.T) {
		w := demoWithSkill(t)
		card, err := w.Show("pending-orders")
		if err != nil {
			t.Fatal(err)
		}
		// The committed demo skill was approved with the CLI: who, when
		// and at which commit, all covered by its hash.
		if a := card.Approval; a == nil || a.By == "" || a.At == "" || len(a.Commit) != 40 || a.Unbound {
			t.Errorf("approval %+v", card.Approval)
		}
		golden(t, "approved.md", card.Markdown(MarkdownOptions{}))
	})

	t.Run("adds a write tool", func(t *testing.T) {
		w := demoWorkspace(t)
		if _, err := w.Propose(ProposeOptions{Name: "lead-status", Description: "Reads a lead's status.", Rationale: "Asked after every call.", Program: []byte(readLead), Now: fixedNow}); err != nil {
			t.Fatal(err)
		}
		if _, err := approve(w, "lead-status", ApproveOptions{ApprovedBy: "Ana <ana@example.com>", ApprovedAt: fixedNow(), Commit: "1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d"}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Propose(ProposeOptions{Name: "lead-status", Description: "Reads a lead and adds a note to it.", Rationale: "Asked after every call.", Program: []byte(writeLead), Now: fixedNow,
			TypeCheck: checkedTS}); err != nil {
			t.Fatal(err)
		}
		card, err := w.Show("lead-status")
		if err != nil {
			t.Fatal(err)
		}
		d := card.SinceApproved
		if d == nil || d.Grant == nil || !d.Grant.Widened || len(d.ToolsAdded) != 1 || d.ToolsAdded[0].String() != "salesforce.updateRecord" || d.Description == nil {
			t.Fatalf("diff %+v", d)
		}
		md := card.Markdown(MarkdownOptions{})
		if i, j := strings.Index(md, "This change asks for WRITE access"), strings.Index(md, "Review card"); i < 0 || i > j {
			t.Errorf("the card does not lead with the write grant:\n%s", md)
		}
		golden(t, "reapprove-write.md", md)
		golden(t, "reapprove-write.txt", card.Render())
	})

	t.Run("example result changed", func(t *testing.T) {
		w := demoWithSkill(t)
		dir := filepath.Join(w.Root, "skills", "pending-orders")
		program := strings.Replace(string(mustRead(t, filepath.Join(dir, "index.ts"))), "input.limit ?? 5", "input.limit ?? 3", 1)
		schema := strings.Replace(string(mustRead(t, filepath.Join(dir, "input.schema.json"))), `"maximum": 100`, `"maximum": 50`, 1)
		var rec map[string]json.RawMessage
		if err := json.Unmarshal(mustRead(t, filepath.Join(dir, "examples", "1.json")), &rec); err != nil {
			t.Fatal(err)
		}
		rec["result"] = json.RawMessage(strings.Replace(string(rec["result"]), `"total":412`, `"total":411`, 1))
		example, _ := json.Marshal(rec)
		if _, err := w.Propose(ProposeOptions{Name: "pending-orders", Description: "Lists the orders of the order sheet in one status (pending by default) with the customers' names, emails and phones.",
			Rationale: "Three are enough.", InputSchema: []byte(schema), Program: []byte(program), Examples: [][]byte{example}, Now: fixedNow}); err != nil {
			t.Fatal(err)
		}
		card, err := w.Show("pending-orders")
		if err != nil {
			t.Fatal(err)
		}
		d := card.SinceApproved
		if d == nil || d.Grant != nil || len(d.Examples) != 1 || !d.Examples[0].ResultChanged || d.Examples[0].InputChanged ||
			len(d.Examples[0].Result) != 1 || d.Examples[0].Result[0].Path != "/total" ||
			len(d.Schema) != 1 || d.Schema[0].Path != "/properties/limit/maximum" || string(d.Schema[0].Before) != "100" || string(d.Schema[0].After) != "50" {
			t.Fatalf("diff %+v", d)
		}
		golden(t, "reapprove-example.md", card.Markdown(MarkdownOptions{}))
	})
}
