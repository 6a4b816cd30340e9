package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/runtime"
	"github.com/mcpcode/mcpcode/skills"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Names of the code tools.
const (
	toolSearch  = "search_tools"
	toolRead    = "read"
	toolExecute = "execute"
	toolPropose = "propose_skill"
)

// codeToolNames are reserved: a skill of the same name is not served.
var codeToolNames = map[string]bool{toolSearch: true, toolRead: true, toolExecute: true, toolPropose: true}

func boolPtr(b bool) *bool { return &b }

// runRecordSchema is execute's output schema: the run record, as
// `mcpcode run --json` prints it.
const runRecordSchema = `{"type":"object","properties":{
"ok":{"type":"boolean","description":"whether the program finished without an error"},
"result":{"description":"the program's result (its default export, or what its default-exported function returned)"},
"logs":{"type":"array","items":{"type":"object","properties":{"level":{"type":"string"},"text":{"type":"string"}}}},
"logsOmitted":{"type":"integer"},
"error":{"type":"object","properties":{"kind":{"type":"string"},"message":{"type":"string"},"stack":{"type":"string"},"limit":{"type":"string"}}},
"toolCalls":{"type":"array","items":{"type":"object"}},
"stats":{"type":"object"}},"required":["ok"]}`

func (g *Gateway) addCodeTools() {
	g.server.AddTool(&mcp.Tool{
		Name:  toolSearch,
		Title: "Search the tools",
		Description: "Finds the tools of the connected MCP servers that match a request, best first. " +
			`detail "name" gives server.tool lines, "summary" (default) adds the first sentence and the import line, "full" the tool file's TypeScript.`,
		InputSchema: json.RawMessage(`{"type":"object","properties":{
"query":{"type":"string","description":"what you want to do, in a few words"},
"detail":{"type":"string","enum":["name","summary","full"],"description":"how much to show per tool (default summary)"},
"limit":{"type":"integer","minimum":1,"maximum":50,"description":"most tools to return (default 5)"}},"required":["query"],"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: boolPtr(false)},
	}, g.handleSearch)
	g.server.AddTool(&mcp.Tool{
		Name:  toolRead,
		Title: "Read a file of the tree",
		Description: "Reads a file, or lists a directory, under servers/ (one TypeScript file per tool: servers/<server>/<tool>.ts; start with servers/README.md) " +
			"or skills/ (approved skills).",
		InputSchema: json.RawMessage(`{"type":"object","properties":{
"path":{"type":"string","description":"a path such as servers/README.md, servers/github or servers/github/createIssue.ts"}},"required":["path"],"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: boolPtr(false)},
	}, g.handleRead)
	g.server.AddTool(&mcp.Tool{
		Name:  toolExecute,
		Title: "Run a TypeScript program",
		Description: "Runs a TypeScript program in a sandbox. It imports tool functions from \"servers/<server>/<tool>\" and approved skills from \"skills/<name>\"; " +
			"its console output and result (its default export) come back, nothing else: filter large data in the program. " +
			"Calls to tools that change things may ask the user first.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{
"code":{"type":"string","description":"the program (TypeScript); top-level await works"},
"input":{"description":"JSON passed to a default-exported function"},
"timeoutMs":{"type":"integer","minimum":1,"description":"wall-time limit of the run in milliseconds (at most the server's limit)"},
"check":{"type":"boolean","description":"type-check the program against the tree first; on type errors nothing runs and they come back (default: on when the server has a TypeScript compiler); false runs it unchecked"}},"required":["code"],"additionalProperties":false}`),
		OutputSchema: json.RawMessage(runRecordSchema),
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: false, DestructiveHint: boolPtr(true), OpenWorldHint: boolPtr(true)},
	}, g.handleExecute)
	g.server.AddTool(&mcp.Tool{
		Name:  toolPropose,
		Title: "Propose a skill",
		Description: "Proposes a program as a reusable skill. Nothing runs and nothing is granted: a person reviews the proposal and approves it; " +
			"then it becomes a tool of its own. The program default-exports an async function of one input object.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{
"name":{"type":"string","description":"lowercase letters, digits and hyphens, at most 64 characters"},
"description":{"type":"string","description":"what it does and when to use it"},
"code":{"type":"string","description":"the program (TypeScript)"},
"rationale":{"type":"string","description":"why it is worth keeping"},
"inputSchema":{"type":"object","description":"JSON Schema of the input object"}},"required":["name","description","code","rationale"],"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: false, DestructiveHint: boolPtr(false), IdempotentHint: true, OpenWorldHint: boolPtr(false)},
	}, g.handlePropose)
}

// decode reads a tool's arguments; a problem is a tool error the agent can
// act on.
func decode(req *mcp.CallToolRequest, v any) *mcp.CallToolResult {
	args := req.Params.Arguments
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errorResult("invalid arguments: %v", err)
	}
	if err := exactKeys(args, v); err != nil {
		return errorResult("invalid arguments: %v", err)
	}
	return nil
}

// exactKeys checks that every key of args is exactly the name of one of
// v's fields. encoding/json also takes "CODE" or "Code" for "code" (the
// last one wins), so {"CODE": a, "code": b} and {"code": b, "CODE": a}
// would run different programs with the same keys and values, which is
// what binds a round's requestState to its call.
func exactKeys(args json.RawMessage, v any) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil {
		return err
	}
	t := reflect.TypeOf(v).Elem()
	names := map[string]bool{}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		names[name] = true
	}
	for k := range obj {
		if !names[k] {
			return fmt.Errorf("unknown field %q (names are case-sensitive)", k)
		}
	}
	return nil
}

// errorResult is a failed tool call with its reason as text.
func errorResult(format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

func (g *Gateway) handleSearch(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Query  string `json:"query"`
		Detail string `json:"detail"`
		Limit  int    `json:"limit"`
	}
	if r := decode(req, &in); r != nil {
		return r, nil
	}
	if in.Detail == "" {
		in.Detail = "summary"
	}
	if in.Detail != "name" && in.Detail != "summary" && in.Detail != "full" {
		return errorResult(`detail %q: use "name", "summary" or "full"`, in.Detail), nil
	}
	if in.Limit <= 0 {
		in.Limit = 5
	}
	if len(in.Query) > maxQueryBytes {
		return errorResult("the query is too long (%d bytes, at most %d): a few words of what you want to do are enough", len(in.Query), maxQueryBytes), nil
	}
	hits, err := g.ws.SearchTools(in.Query, min(in.Limit, 50), in.Detail == "full")
	if err != nil {
		return errorResult("%v", err), nil
	}
	return textResult(RenderSearch(hits, in.Detail)), nil
}

// RenderSearch shows search hits in one of the details of search_tools.
func RenderSearch(hits []app.SearchHit, detail string) string {
	if len(hits) == 0 {
		return "No tool matches. Try other words, or read servers/README.md for the list of servers."
	}
	var b strings.Builder
	for i, h := range hits {
		switch detail {
		case "name":
			fmt.Fprintf(&b, "%s.%s\n", h.Server, h.Tool)
		case "full":
			if i > 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "// %s\n%s", h.File, h.Source)
		default:
			fmt.Fprintf(&b, "%s.%s — %s\n  %s\n", h.Server, h.Tool, h.Summary, h.Import)
		}
	}
	return b.String()
}

func (g *Gateway) handleRead(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Path string `json:"path"`
	}
	if r := decode(req, &in); r != nil {
		return r, nil
	}
	content, entries, err := g.ws.ReadTree(in.Path)
	if err != nil {
		return errorResult("%v", err), nil
	}
	if entries == nil {
		return textResult(string(content)), nil
	}
	var b strings.Builder
	for _, e := range entries {
		if e.Dir {
			fmt.Fprintf(&b, "%s/\n", e.Name)
		} else {
			fmt.Fprintf(&b, "%s\n", e.Name)
		}
	}
	if len(entries) == 0 {
		b.WriteString("(empty)\n")
	}
	return textResult(b.String()), nil
}

func (g *Gateway) handleExecute(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Code      string          `json:"code"`
		Input     json.RawMessage `json:"input"`
		TimeoutMs int64           `json:"timeoutMs"`
		Check     *bool           `json:"check"`
	}
	if r := decode(req, &in); r != nil {
		return r, nil
	}
	if strings.TrimSpace(in.Code) == "" {
		return errorResult("code is empty: give a TypeScript program"), nil
	}
	check := app.CheckAuto
	if in.Check != nil {
		check = map[bool]string{true: app.CheckOn, false: app.CheckOff}[*in.Check]
	}
	return g.run(ctx, req, app.RunRequest{Source: []byte(in.Code), Input: in.Input, Check: check}, in.TimeoutMs, "")
}

// run runs a program or a skill for a host, with writes under the gate:
// at once for hosts that can be sent requests during a call, in rounds
// for hosts on protocol 2026-07-28 (rounds.go). version identifies what
// runs beyond the call's arguments (a skill's approved files), so that a
// round cannot be resumed by other code.
func (g *Gateway) run(ctx context.Context, req *mcp.CallToolRequest, r app.RunRequest, timeoutMs int64, version string) (*mcp.CallToolResult, error) {
	lim := g.opts.Limits
	ceiling := lim.Timeout
	if ceiling <= 0 {
		ceiling = runtime.DefaultLimits().Timeout
	}
	// timeoutMs may only lower the server's limit; compared in
	// milliseconds, so that a huge value cannot overflow a Duration into a
	// negative one (which would mean the runtime's default).
	lim.Timeout = ceiling
	if timeoutMs > 0 && timeoutMs < ceiling.Milliseconds() {
		lim.Timeout = time.Duration(timeoutMs) * time.Millisecond
	}
	r.Limits = lim
	r.Isolation = g.opts.Isolation
	h := hostOf(req, g.stateless.Load())
	r.By = runBy(req.Session, h)
	if h.modern {
		call := digest(req.Params.Name, string(canonicalArgs(req.Params.Arguments)), version)
		return g.runInRounds(ctx, req, r, h, call)
	}
	if req.Params.RequestState != "" {
		return nil, invalidParams("requestState is part of protocol 2026-07-28, and this call is on %s: nothing was sent", req.ProtocolVersion())
	}
	var a asker
	if h.elicit {
		a = classicAsker{session: h.session}
	}
	gt := newGate(g.pool, g.opts.ConfirmWrites, a, h.cannotElicit)
	r.Caller = &forwarding{Caller: gt, pool: g.pool, h: classicHandlers(h)} // upstream servers' elicitation and sampling go to this host (forward.go)
	return g.execute(ctx, r), nil
}

// execute runs a request and turns the run into a tool result.
func (g *Gateway) execute(ctx context.Context, r app.RunRequest) *mcp.CallToolResult {
	res, err := g.ws.Run(ctx, r)
	if err != nil {
		return errorResult("%v", err)
	}
	return runResult(res)
}

// runResult turns a run into a tool result: the text is what the program
// logged and returned (or its error), the structured content the record.
func runResult(res *runtime.Result) *mcp.CallToolResult {
	var b strings.Builder
	b.WriteString(app.RunOutput(res))
	if res.LogsOmitted > 0 {
		fmt.Fprintf(&b, "[… %d more characters of output omitted]\n", res.LogsOmitted)
	}
	b.WriteString(app.RunErrorText(res))
	text := b.String()
	if text == "" {
		text = "(the program printed nothing and returned nothing)"
	}
	out := &mcp.CallToolResult{IsError: !res.OK, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	if raw, err := json.Marshal(res); err == nil {
		out.StructuredContent = json.RawMessage(raw)
	}
	return out
}

func (g *Gateway) handlePropose(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Code        string          `json:"code"`
		Rationale   string          `json:"rationale"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if r := decode(req, &in); r != nil {
		return r, nil
	}
	if r := g.checkProposal(in.Name, in.Rationale, in.InputSchema); r != nil {
		return r, nil
	}
	res, err := g.ws.Propose(skills.ProposeOptions{Name: in.Name, Description: in.Description, Rationale: in.Rationale,
		InputSchema: in.InputSchema, Program: []byte(in.Code)})
	if err != nil {
		return errorResult("the proposal was not recorded: %v", err), nil
	}
	p := res.Proposal
	var b strings.Builder
	verb := "Recorded"
	if res.Replaced {
		verb = "Replaced the pending proposal with"
	}
	fmt.Fprintf(&b, "%s the proposal %q. Nothing runs and nothing is granted until a person approves it", verb, p.Name)
	fmt.Fprintf(&b, " (they review it with `mcpcode skills show %s` and approve it with `mcpcode skills approve %s`); then it becomes the tool %q.\n", p.Name, p.Name, p.Name)
	var calls []string
	for _, t := range p.Tools {
		calls = append(calls, t.String())
	}
	if len(calls) > 0 {
		fmt.Fprintf(&b, "It calls: %s\n", strings.Join(calls, ", "))
	}
	return textResult(b.String()), nil
}

// Bounds of what an agent can make the gateway store or compute: a
// proposal is kept on the person's disk until they review it, and every
// tools/list reads the proposals; ranking a query costs its words times
// the tools.
const (
	maxQueryBytes       = 2000
	maxRationaleBytes   = 8 << 10
	maxInputSchemaBytes = 64 << 10
	maxPendingProposals = 100
)

// checkProposal refuses a proposal that is too large, or one more when
// there are already maxPendingProposals waiting for review (replacing a
// pending proposal is always possible). The program's own size is bounded
// where it is bundled.
func (g *Gateway) checkProposal(name, rationale string, schema json.RawMessage) *mcp.CallToolResult {
	if len(rationale) > maxRationaleBytes {
		return errorResult("the proposal was not recorded: the rationale is %d bytes long, at most %d: say in a few sentences why the program is worth keeping", len(rationale), maxRationaleBytes)
	}
	if len(schema) > maxInputSchemaBytes {
		return errorResult("the proposal was not recorded: the input schema is %d bytes long, at most %d", len(schema), maxInputSchemaBytes)
	}
	entries, err := os.ReadDir(g.ws.Proposals())
	if err != nil {
		return nil // none yet (or unreadable: Propose reports that)
	}
	pending := 0
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			if e.Name() == name {
				return nil // a replacement adds none
			}
			pending++
		}
	}
	if pending >= maxPendingProposals {
		return errorResult("the proposal was not recorded: %d proposals are already pending, at most %d: ask the user to review them (mcpcode skills list; approve or dismiss), or replace one by proposing it again under its name", pending, maxPendingProposals)
	}
	return nil
}

// errSkillGone is reported for a skill tool whose skill disappeared.
var errSkillGone = errors.New("this skill is no longer approved")

// runBy says which MCP client asked for a run, for the audit log.
func runBy(session *mcp.ServerSession, h host) app.RunBy {
	by := app.RunBy{Face: app.FaceServe, Client: h.client}
	if session != nil {
		by.Session = session.ID()
	}
	return by
}
