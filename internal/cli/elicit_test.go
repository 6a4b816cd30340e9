package cli

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// formSchemaJSON has every kind of field MCP allows in a form.
const formSchemaJSON = `{"type":"object","properties":{
"name":{"type":"string","title":"Name","description":"Your full name"},
"age":{"type":"integer","minimum":1,"maximum":150,"default":30},
"agree":{"type":"boolean","description":"Agree to the terms"},
"hero":{"type":"string","oneOf":[{"const":"h1","title":"Superman"},{"const":"h2","title":"Wonder Woman"}],"default":"h1"},
"pets":{"type":"array","items":{"type":"string","enum":["cat","dog","fish"]},"minItems":1},
"note":{"type":"string"}},
"required":["name","agree"]}`

func askForm(t *testing.T, answers string, order []string) (*mcp.ElicitResult, string) {
	t.Helper()
	var out strings.Builder
	f := &form{in: newLineReader(strings.NewReader(answers)), out: &out}
	var schema map[string]any
	if err := json.Unmarshal([]byte(formSchemaJSON), &schema); err != nil {
		t.Fatal(err)
	}
	res, err := f.ask(context.Background(), &app.ElicitRequest{Server: "crm", Order: order,
		Params: &mcp.ElicitParams{Message: "Who are you?", RequestedSchema: schema}})
	if err != nil {
		t.Fatal(err)
	}
	return res, out.String()
}

func TestTerminalForm(t *testing.T) {
	t.Parallel()
	order := []string{"name", "age", "agree", "hero", "pets", "note"}
	// yes; name; age: not a number, then 200 (too big), then 44; agree: yes;
	// hero: Enter (default); pets: 1,3; note: Enter (optional, left out).
	res, out := askForm(t, "y\nAda Lovelace\nold\n200\n44\nyes\n\n1,3\n\n", order)
	want := map[string]any{"name": "Ada Lovelace", "age": int64(44), "agree": true, "hero": "h1", "pets": []any{"cat", "fish"}}
	if res.Action != "accept" || !reflect.DeepEqual(res.Content, want) {
		t.Errorf("got %s %#v\nwant accept %#v\noutput:\n%s", res.Action, res.Content, want, out)
	}
	for _, s := range []string{
		"mcpcode: server \"crm\" asks:\n  │ Who are you?\n",
		"  │ Your full name\n  Name (name) (required): ",
		"  age (integer) [30]: ",
		`"old" is not an integer`,
		"the largest allowed is 150",
		"    1) Superman (h1)\n    2) Wonder Woman (h2)\n",
		"  hero (a number or a value) [h1]: ",
		"  pets (numbers separated by commas): ",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("the form lacks %q:\n%s", s, out)
		}
	}
	if strings.Index(out, "age (") > strings.Index(out, "agree (") {
		t.Errorf("fields are not in the server's order:\n%s", out)
	}

	if res, _ := askForm(t, "n\n", order); res.Action != "decline" || res.Content != nil {
		t.Errorf("n: %+v", res)
	}
	if res, _ := askForm(t, "c\n", order); res.Action != "cancel" {
		t.Errorf("c: %+v", res)
	}
	// The input ends in the middle of the form: cancelled, nothing sent.
	if res, _ := askForm(t, "y\nAda\n", order); res.Action != "cancel" || res.Content != nil {
		t.Errorf("EOF: %+v", res)
	}
	// A required field left empty three times cancels.
	if res, out := askForm(t, "y\n\n\n\n", order); res.Action != "cancel" || !strings.Contains(out, "an answer is required") {
		t.Errorf("empty required: %+v\n%s", res, out)
	}
}

// TestRunWithoutTerminalDeclinesWithAReason: handlers of a run whose
// stdin is not a terminal ask no one and say why.
func TestRunWithoutTerminalDeclinesWithAReason(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	h := ta.clientHandlers()
	if h.Elicit != nil || !strings.Contains(h.NoElicit, "no terminal") {
		t.Errorf("handlers without a terminal: %+v", h)
	}
	if h.Sample != nil || !strings.Contains(h.NoSample, "no model") {
		t.Errorf("sampling: %+v", h)
	}
}

// TestAbandonedQuestionIsNotShown: a question whose request ended while
// it waited for the terminal (another question was being answered; its
// server gave up, or asked too many) is not printed, and takes no line
// of the person's input meant for the next question.
func TestAbandonedQuestionIsNotShown(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	f := &form{in: newLineReader(strings.NewReader("y\n")), out: &out}
	ctx, cancel := context.WithCancel(context.Background())
	f.mu.Lock() // another question is being answered
	done := make(chan error, 1)
	go func() {
		_, err := f.ask(ctx, &app.ElicitRequest{Server: "crm", Params: &mcp.ElicitParams{Message: "Abandoned?"}})
		done <- err
	}()
	cancel()
	f.mu.Unlock()
	if err := <-done; err == nil {
		t.Error("the abandoned question was answered")
	}
	if out.Len() != 0 {
		t.Errorf("the abandoned question was shown:\n%s", out.String())
	}
	res, err := f.ask(context.Background(), &app.ElicitRequest{Server: "crm", Params: &mcp.ElicitParams{Message: "Next?"}})
	if err != nil || res.Action != "accept" {
		t.Errorf("the next question: %+v %v, want the person's yes", res, err)
	}
}
