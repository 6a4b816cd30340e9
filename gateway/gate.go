package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Answers a person can give when asked about a write, in the optional
// "decision" field of the confirmation form. A plain accept (no decision)
// allows the one call; decline or cancel refuses it.
const (
	answerOnce = "allow once"
	answerRun  = "allow for the rest of this run"
	answerDeny = "deny"
)

// confirmSchema is the form of a write's confirmation: one optional field,
// so that a host's yes/no dialog (accept with empty content) is an answer.
// It has no default: clients that fill in defaults would turn a plain
// accept into a decision the person did not make.
var confirmSchema = json.RawMessage(`{"type":"object","properties":{"decision":{"type":"string","title":"Decision",` +
	`"description":"Accept alone allows this one call; choose \"` + answerRun + `\" to also allow this run's later calls of the same tool.",` +
	`"enum":["` + answerOnce + `","` + answerRun + `","` + answerDeny + `"]}}}`)

// verdict is what an answer to a write's confirmation allows.
type verdict int

const (
	refused verdict = iota
	allowedOnce
	allowedForRun
)

// readVerdict reads a host's answer: accept with no decision (what a
// yes/no dialog sends) or "allow once" allows the call, "allow for the rest
// of this run" also the run's later calls of that tool; anything else
// (decline, cancel, "deny", a decision nobody offered) refuses it.
func readVerdict(res *mcp.ElicitResult) verdict {
	if res == nil || res.Action != "accept" {
		return refused
	}
	d, ok := res.Content["decision"]
	if !ok || d == nil {
		return allowedOnce
	}
	switch d {
	case answerOnce, "":
		return allowedOnce
	case answerRun:
		return allowedForRun
	}
	return refused
}

// hostQuestion is one question for the person at the host: a write's
// confirmation, or an upstream server's request passed on.
type hostQuestion struct {
	// kind is questionWrite or questionUpstream.
	kind string
	// request is what the host is asked (*mcp.ElicitParams, or
	// *mcp.CreateMessageParams for an upstream server's sampling).
	request mcp.InputRequest
	// binding identifies exactly what the answer applies to: for a write,
	// the server, tool and arguments that will be sent.
	binding string
	// write is the call a write's confirmation is about.
	write *pendingCall
}

// Kinds of question.
const (
	questionWrite    = "write"
	questionUpstream = "upstream"
)

// pendingCall is a write waiting for the person's answer, as it will be
// sent.
type pendingCall struct {
	Server string          `json:"server"`
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args"`
}

// asker puts questions to the person through the host. ask returns the
// answer; when it allows a write, the call must be sent with the returned
// context, and when the gate refuses it after all, release must be called.
type asker interface {
	ask(ctx context.Context, q *hostQuestion) (resp mcp.InputResponse, send context.Context, release func(), err error)
}

// classicAsker asks a host that accepts server-to-client requests during a
// call (protocol revisions before 2026-07-28): MCP elicitation.
type classicAsker struct{ session *mcp.ServerSession }

func (a classicAsker) ask(ctx context.Context, q *hostQuestion) (mcp.InputResponse, context.Context, func(), error) {
	p, ok := q.request.(*mcp.ElicitParams)
	if !ok {
		return nil, nil, nil, fmt.Errorf("cannot ask a %T by elicitation", q.request)
	}
	res, err := a.session.Elicit(ctx, p)
	return res, ctx, func() {}, err
}

// gate is the Caller of one run from the gateway: calls of read-only tools
// pass; calls of other tools pass only as the write policy says: asked of
// the person through the host (ask), always (allow) or never (deny). Calls
// made by an approved skill that a person granted write are not asked
// again. A refused call sends nothing: the program gets a permission
// error.
//
// The gate is the last check before a call leaves, and it trusts nothing
// the run says: a run in a worker process is relayed from a process that
// a hostile program may control, so the gate itself refuses a tool the
// server does not list and arguments that are not a JSON object, and it
// sends a write exactly as it was shown to the person.
type gate struct {
	inner mcptool.Caller
	mode  string
	// asker asks the person; nil when the host cannot be asked, and
	// cannotAsk says why.
	asker     asker
	cannotAsk string

	askMu sync.Mutex // one question at a time
	mu    sync.Mutex
	// allowed holds the tools ("server\x00tool") the person allowed for
	// the rest of the run: an allowance covers the tool the person saw,
	// not every write the program makes next.
	allowed map[string]bool
	// declined is set once the person declined (or could not be asked):
	// the run's further writes are refused without asking again, so a
	// program cannot wear the person down with questions.
	declined bool
}

// newGate returns the gate of one run; a nil asker refuses every write
// that needs asking, saying why (cannotAsk).
func newGate(inner mcptool.Caller, mode string, a asker, cannotAsk string) *gate {
	return &gate{inner: inner, mode: mode, asker: a, cannotAsk: cannotAsk, allowed: map[string]bool{}}
}

func (g *gate) Tools(ctx context.Context, server string) ([]mcptool.Tool, error) {
	return g.inner.Tools(ctx, server)
}

func (g *gate) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (*mcptool.Result, error) {
	send, ctx, err := g.permit(ctx, server, tool, args)
	if err != nil {
		return nil, err
	}
	return g.inner.CallTool(ctx, server, tool, send)
}

// allowedTools lists the tools allowed for the rest of the run, sorted.
func (g *gate) allowedTools() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]string, 0, len(g.allowed))
	for k := range g.allowed {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// permit decides whether a call may be sent, and returns the arguments to
// send and the context to send them with.
func (g *gate) permit(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, context.Context, error) {
	tools, err := g.inner.Tools(ctx, server)
	if err != nil {
		return nil, ctx, err
	}
	var info *mcptool.Tool
	for i := range tools {
		if tools[i].Name == tool {
			info = &tools[i]
			break
		}
	}
	if info == nil {
		return nil, ctx, fmt.Errorf("%w: server %s has no tool %s; nothing was sent", mcptool.ErrDenied, quoteName(server), quoteName(tool))
	}
	value, err := decodeArgs(args)
	if err != nil {
		return nil, ctx, fmt.Errorf("%w: the arguments for %s.%s are not a JSON object (%v); nothing was sent", mcptool.ErrDenied, server, tool, err)
	}
	if info.Hints.IsReadOnly() {
		return args, ctx, nil
	}
	// A write is sent as the gate encodes it: what the person is shown is
	// what the server gets (no duplicate keys read one way here and
	// another way there).
	send, err := json.Marshal(value)
	if err != nil {
		return nil, ctx, fmt.Errorf("%w: the arguments for %s.%s cannot be encoded (%v); nothing was sent", mcptool.ErrDenied, server, tool, err)
	}
	if s, ok := mcptool.ScopeOf(ctx); ok && s.Skill != "" && s.Write {
		return send, ctx, nil // a person granted this skill write when approving it
	}
	switch g.mode {
	case ConfirmAllow:
		return send, ctx, nil
	case ConfirmDeny:
		return nil, ctx, fmt.Errorf("%w: %s.%s is not read-only and this server refuses writes (mcpcode serve --confirm-writes deny); nothing was sent", mcptool.ErrDenied, server, tool)
	}
	key := server + "\x00" + tool
	if ok, err := g.decided(server, tool, key); ok || err != nil {
		return send, ctx, err
	}
	if g.asker == nil {
		return nil, ctx, fmt.Errorf("%w: %s.%s is not read-only and the host cannot ask the user to confirm it (%s); "+
			"nothing was sent. To allow writes without asking, start the server with: mcpcode serve --confirm-writes allow", mcptool.ErrDenied, server, tool, g.cannotAsk)
	}
	g.askMu.Lock()
	defer g.askMu.Unlock()
	if ok, err := g.decided(server, tool, key); ok || err != nil {
		return send, ctx, err
	}
	q := &hostQuestion{
		kind:    questionWrite,
		request: &mcp.ElicitParams{Message: question(server, tool, value) + tokenNote(ctx, server), RequestedSchema: confirmSchema},
		binding: writeBinding(server, tool, send),
		write:   &pendingCall{Server: server, Tool: tool, Args: send},
	}
	resp, sendCtx, release, err := g.asker.ask(ctx, q)
	if err != nil {
		g.decline()
		return nil, ctx, fmt.Errorf("%w: asking the user to confirm %s.%s failed (%v); nothing was sent", mcptool.ErrDenied, server, tool, err)
	}
	res, _ := resp.(*mcp.ElicitResult)
	v := readVerdict(res)
	if v == refused {
		release()
		g.decline()
		return nil, ctx, fmt.Errorf("%w: the user did not allow %s.%s; nothing was sent, and this run's other writes will be refused without asking", mcptool.ErrDenied, server, tool)
	}
	if v == allowedForRun {
		g.mu.Lock()
		g.allowed[key] = true
		g.mu.Unlock()
	}
	return send, sendCtx, nil
}

// writeBinding identifies a write exactly: the server, tool and the
// arguments as they are sent.
func writeBinding(server, tool string, send json.RawMessage) string {
	return digest(questionWrite, server, tool, string(send))
}

// decided says whether the person already answered for this call in this
// run: allowed (true), declined (an error), or not yet (false, nil).
func (g *gate) decided(server, tool, key string) (bool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.declined {
		return false, fmt.Errorf("%w: the user declined a write earlier in this run, so %s.%s is refused without asking; nothing was sent", mcptool.ErrDenied, server, tool)
	}
	return g.allowed[key], nil
}

func (g *gate) decline() {
	g.mu.Lock()
	g.declined = true
	g.mu.Unlock()
}

// decodeArgs reads a call's arguments, which must be one JSON object;
// numbers keep their exact text.
func decodeArgs(args json.RawMessage) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("text after the JSON value")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("got %s", jsonKind(v))
	}
	return obj, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	}
	return "something else"
}

// question is the text a person is asked about a write: the exact server,
// tool and arguments, in a form a program cannot dress up (every character
// that is invisible or moves text around is shown as an escape), and with
// every field visible: long values are cut short, and the question says
// so, rather than the end of the arguments being cut off.
func question(server, tool string, args map[string]any) string {
	shown, elided := showArgs(args)
	var b strings.Builder
	fmt.Fprintf(&b, "A program wants to call %s.%s, which may change data, with these arguments:\n%s\n", quoteName(server), quoteName(tool), shown)
	if elided {
		b.WriteString("Parts of the arguments are not shown (each … marks what was left out): allow only if you trust this program with the whole call.\n")
	}
	fmt.Fprintf(&b, "Allow it? Accept allows this call; accept with %q also allows this run's later calls of %s.%s (other tools are still asked about); decline refuses it and the run's other writes.",
		answerRun, quoteName(server), quoteName(tool))
	return b.String()
}

// quoteName shows a server's or tool's name as it is when it is plain, and
// quoted with escapes otherwise.
func quoteName(s string) string {
	if s != "" && len(s) <= 128 && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r == ':' || unicode.IsLetter(r) || unicode.IsDigit(r)) || hiddenRune(r)
	}) {
		return s
	}
	return escapeString(s, 128)
}

// Bounds of what a question shows.
const (
	maxShownString = 300  // runes of one string
	maxShownItems  = 30   // items of one array
	maxShownKeys   = 100  // keys of one object
	maxShownDepth  = 8    // nesting
	maxShownArgs   = 8000 // bytes of the whole
)

// showArgs renders arguments for a person: indented JSON with sorted keys,
// long strings, arrays and objects elided with a count of what was left
// out, and invisible characters escaped. elided says whether anything was
// left out.
func showArgs(args map[string]any) (string, bool) {
	var b strings.Builder
	elided := writeValue(&b, args, 0)
	out := b.String()
	if len(out) > maxShownArgs {
		cut := maxShownArgs
		for cut > 0 && !utf8.RuneStart(out[cut]) {
			cut--
		}
		out = out[:cut] + fmt.Sprintf("… (%d more bytes not shown)", len(out)-cut)
		elided = true
	}
	return out, elided
}

func writeValue(b *strings.Builder, v any, depth int) (elided bool) {
	indent := strings.Repeat("  ", depth+1)
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			b.WriteString("{}")
			return false
		}
		if depth >= maxShownDepth {
			fmt.Fprintf(b, "{… (%d keys not shown)}", len(x))
			return true
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("{\n")
		for i, k := range keys {
			if i == maxShownKeys {
				fmt.Fprintf(b, "%s… (%d more keys not shown)\n", indent, len(keys)-i)
				elided = true
				break
			}
			b.WriteString(indent)
			b.WriteString(escapeString(k, maxShownString))
			elided = elided || utf8.RuneCountInString(k) > maxShownString
			b.WriteString(": ")
			elided = writeValue(b, x[k], depth+1) || elided
			if i < len(keys)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString(indent[2:])
		b.WriteString("}")
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return false
		}
		if depth >= maxShownDepth {
			fmt.Fprintf(b, "[… (%d items not shown)]", len(x))
			return true
		}
		b.WriteString("[\n")
		for i, item := range x {
			if i == maxShownItems {
				fmt.Fprintf(b, "%s… (%d more items not shown)\n", indent, len(x)-i)
				elided = true
				break
			}
			b.WriteString(indent)
			elided = writeValue(b, item, depth+1) || elided
			if i < len(x)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString(indent[2:])
		b.WriteString("]")
	case string:
		b.WriteString(escapeString(x, maxShownString))
		if n := utf8.RuneCountInString(x); n > maxShownString {
			fmt.Fprintf(b, " (%d more characters not shown)", n-maxShownString)
			return true
		}
	case json.Number:
		b.WriteString(x.String())
	case bool:
		fmt.Fprint(b, x)
	case nil:
		b.WriteString("null")
	default:
		fmt.Fprintf(b, "%v", x)
	}
	return elided
}

// escapeString quotes s as JSON, cut to max runes (ending in …), with every
// control, format (bidi overrides, zero-width), separator, private-use or
// invalid character written as a \u escape.
func escapeString(s string, max int) string {
	var b strings.Builder
	b.WriteByte('"')
	n := 0
	for i, r := range s {
		if n == max {
			b.WriteString("…")
			break
		}
		n++
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == utf8.RuneError && isInvalidAt(s, i):
			b.WriteString(`\ufffd`)
		case hiddenRune(r):
			if r > 0xffff {
				r1, r2 := utf16.EncodeRune(r)
				fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// hiddenRune reports whether r can change how text around it reads without
// showing itself: controls, format characters, line and paragraph
// separators, private use, surrogates, the replacement character, and
// anything else that is not graphic (or a plain space).
func hiddenRune(r rune) bool {
	if r == ' ' {
		return false
	}
	return !unicode.IsGraphic(r) || unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Co, unicode.Cs) ||
		r == utf8.RuneError || unicode.Is(unicode.Zs, r)
}

func isInvalidAt(s string, i int) bool {
	_, size := utf8.DecodeRuneInString(s[i:])
	return size <= 1
}
