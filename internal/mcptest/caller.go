package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/mcpcode/mcpcode/internal/mcptool"
)

// FakeCall is one call the fake caller received.
type FakeCall struct {
	Server, Tool string
	Args         string
	// Scope is the scope the call's context carried (mcptool.ScopeOf), nil
	// when none.
	Scope *mcptool.Scope
}

// FakeCaller plays the fixture's servers: google-drive, salesforce and
// slack, with synthetic data.
type FakeCaller struct {
	// Barrier, when > 0, holds every call until that many are in flight
	// at once (or the call's context ends). Set it before the first call.
	Barrier int
	// Rows is the size of getSheet's result (6 unless set before the
	// first call).
	Rows int

	mu          sync.Mutex
	toolsAsked  []string
	calls       []FakeCall
	inFlight    int
	maxInFlight int
	cond        *sync.Cond
	// deployPolls counts slack.getDeployment calls.
	deployPolls int
}

// NewFakeCaller returns a FakeCaller with no calls yet.
func NewFakeCaller() *FakeCaller {
	f := &FakeCaller{Rows: 6}
	f.cond = sync.NewCond(&f.mu)
	return f
}

func obj(s string) json.RawMessage { return json.RawMessage(s) }

// ToolDef is a fake tool in short form; Tool turns it into the definition
// a server would list.
type ToolDef struct {
	Name            string
	InputSchema     json.RawMessage
	HasOutputSchema bool
	ReadOnly        bool
}

// Tool is the definition as mcptool parses it from a server's list.
func (d ToolDef) Tool() mcptool.Tool {
	def := map[string]any{"name": d.Name, "annotations": map[string]any{"readOnlyHint": d.ReadOnly}}
	if d.InputSchema != nil {
		def["inputSchema"] = d.InputSchema
	}
	if d.HasOutputSchema {
		def["outputSchema"] = map[string]any{"type": "object"}
	}
	raw, _ := json.Marshal(def)
	t, _, err := mcptool.Parse(raw)
	if err != nil {
		panic(err)
	}
	return t
}

// fakeTools are the fixture's servers and their tools.
var fakeTools = map[string][]ToolDef{
	"google-drive": {
		{Name: "getDocument", HasOutputSchema: true, ReadOnly: true, InputSchema: obj(`{"type":"object","properties":{"documentId":{"type":"string","description":"The ID"},"fields":{"type":"string"}},"required":["documentId"],"additionalProperties":false}`)},
		{Name: "getSheet", HasOutputSchema: true, ReadOnly: true, InputSchema: obj(`{"type":"object","properties":{"sheetId":{"type":"string"},"limit":{"type":"integer","minimum":1}},"required":["sheetId"]}`)},
		{Name: "search", ReadOnly: true, InputSchema: obj(`{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"}},"required":["query"]}`)},
		{Name: "updateDocument", InputSchema: obj(`{"type":"object","properties":{"documentId":{"type":"string"},"content":{"type":"string"}},"required":["documentId","content"]}`)},
	},
	"salesforce": {
		{Name: "query", ReadOnly: true, InputSchema: obj(`{"type":"object","properties":{"soql":{"type":"string"}},"required":["soql"]}`)},
		{Name: "updateRecord", InputSchema: obj(`{"type":"object","properties":{"objectType":{"type":"string"},"recordId":{"type":"string"},"data":{"type":"object"}},"required":["objectType","recordId","data"]}`)},
		{Name: "sloppy", ReadOnly: true, InputSchema: obj(`{"type":"object","properties":{"x":{"$ref":"https://example.com/remote.json"}},"required":"x"}`)},
		{Name: "broken", ReadOnly: true, InputSchema: obj(`{}`)},
	},
	"slack": {
		{Name: "getDeployment", ReadOnly: true, InputSchema: obj(`{"type":"object","properties":{"id":{"type":"string"}}}`)},
		{Name: "down", ReadOnly: true},
		{Name: "hang", ReadOnly: true},
	},
}

// Tools lists a fixture server's tools.
func (f *FakeCaller) Tools(ctx context.Context, server string) ([]mcptool.Tool, error) {
	f.mu.Lock()
	f.toolsAsked = append(f.toolsAsked, server)
	f.mu.Unlock()
	defs, ok := fakeTools[server]
	if !ok {
		return nil, fmt.Errorf("%w %q: the configured servers are google-drive, salesforce, slack", mcptool.ErrUnknownServer, server)
	}
	tools := make([]mcptool.Tool, len(defs))
	for i, d := range defs {
		tools[i] = d.Tool()
	}
	return tools, nil
}

// TextResult is a tool result of one text content.
func TextResult(text string) *mcptool.Result {
	b, _ := json.Marshal([]map[string]string{{"type": "text", "text": text}})
	return &mcptool.Result{Content: b}
}

// CallTool answers as the fixture's servers do (see fakeTools).
func (f *FakeCaller) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (*mcptool.Result, error) {
	f.mu.Lock()
	c := FakeCall{Server: server, Tool: tool, Args: string(args)}
	if sc, ok := mcptool.ScopeOf(ctx); ok {
		c.Scope = &sc
	}
	f.calls = append(f.calls, c)
	f.inFlight++
	f.maxInFlight = max(f.maxInFlight, f.inFlight)
	f.cond.Broadcast()
	if f.Barrier > 0 {
		stop := context.AfterFunc(ctx, func() { f.mu.Lock(); f.cond.Broadcast(); f.mu.Unlock() })
		for f.maxInFlight < f.Barrier && ctx.Err() == nil {
			f.cond.Wait()
		}
		stop()
	}
	f.inFlight--
	rows := f.Rows
	f.mu.Unlock()

	var a map[string]any
	_ = json.Unmarshal(args, &a)
	switch server + "." + tool {
	case "google-drive.getDocument":
		id, _ := a["documentId"].(string)
		if id == "missing" {
			r := TextResult("document missing not found")
			r.IsError = true
			return r, nil
		}
		sc := fmt.Sprintf(`{"title":"Doc %s","content":"Content of %s"}`, id, id)
		return &mcptool.Result{Content: TextResult(sc).Content, StructuredContent: obj(sc)}, nil
	case "google-drive.getSheet":
		var b strings.Builder
		b.WriteString(`{"rows":[`)
		for i := 0; i < rows; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			status := "done"
			if i%3 == 0 {
				status = "pending"
			}
			fmt.Fprintf(&b, `{"id":%d,"Status":"%s","Customer":"customer %d","Amount":%d}`, i, status, i, i*10)
		}
		b.WriteString(`]}`)
		// A sloppy server: structured output declared, but only JSON text sent.
		return TextResult(b.String()), nil
	case "google-drive.search":
		return TextResult(`[{"name":"a.txt"},{"name":"b.txt"}]`), nil
	case "google-drive.updateDocument", "salesforce.updateRecord":
		return TextResult("updated"), nil
	case "salesforce.query", "salesforce.sloppy", "salesforce.broken":
		return TextResult("plain text answer"), nil
	case "slack.getDeployment":
		f.mu.Lock()
		f.deployPolls++
		n := f.deployPolls
		f.mu.Unlock()
		status := "running"
		if n >= 3 {
			status = "complete"
		}
		return &mcptool.Result{Content: TextResult(`{"status":"` + status + `"}`).Content}, nil
	case "slack.down":
		return nil, fmt.Errorf("connection closed: EOF")
	case "slack.hang":
		<-ctx.Done() // a server that never answers
		return nil, ctx.Err()
	}
	return nil, fmt.Errorf("fake caller: no tool %s.%s", server, tool)
}

// Scopes lists the calls the fake caller received, each with the scope
// its context carried: "server.tool by skill (write)", "server.tool by
// skill (no write)", or "server.tool, no scope".
func (f *FakeCaller) Scopes() []string {
	var out []string
	for _, c := range f.Calls() {
		switch {
		case c.Scope == nil:
			out = append(out, c.Server+"."+c.Tool+", no scope")
		case c.Scope.Write:
			out = append(out, c.Server+"."+c.Tool+" by "+c.Scope.Skill+" (write)")
		default:
			out = append(out, c.Server+"."+c.Tool+" by "+c.Scope.Skill+" (no write)")
		}
	}
	return out
}

// Calls lists the calls received so far.
func (f *FakeCaller) Calls() []FakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]FakeCall(nil), f.calls...)
}

// ToolsAsked lists the servers whose tools were asked for, in order.
func (f *FakeCaller) ToolsAsked() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.toolsAsked...)
}

// MaxInFlight is the most calls that were in progress at once.
func (f *FakeCaller) MaxInFlight() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.maxInFlight
}
