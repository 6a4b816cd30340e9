package privacy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpcode/mcpcode/internal/mcptool"
)

// Config says what a session does.
type Config struct {
	// Tokenize replaces values by tokens in what leaves a run (Finish) and
	// tokens by their values in tool-call arguments.
	Tokenize bool
	// Kinds are the built-in detectors to use; nil means all of them.
	Kinds []string
	// Patterns are custom detectors.
	Patterns []Pattern
	// NameFields are the keys whose values are person names; nil means
	// DefaultNameFields.
	NameFields []string
	// Flows restrict where values may go: a value that came from a server
	// with rules may be sent only to that server and the servers its rules
	// name. Values from servers without rules go anywhere.
	Flows []Flow
}

// Flow is one rule: values from From may be sent to the servers in To.
type Flow struct {
	From string   `json:"from"`
	To   []string `json:"to"`
}

// Session is the privacy of one run. It is safe for concurrent use.
type Session struct {
	cfg    Config
	store  *Store
	det    *Detector
	fields map[string]bool
	names  *NameIndex
	allow  map[string]map[string]bool // from → to
	kinds  map[string]bool            // kinds that tokens may have

	mu    sync.Mutex
	seen  map[string]*seenValue
	order []string
}

// seenValue is a value found in tool results during the run.
type seenValue struct {
	kind, value string
	from        []string
}

// NewSession starts the privacy of a run. store may be nil when
// cfg.Tokenize is false.
func NewSession(store *Store, cfg Config) (*Session, error) {
	det, err := NewDetector(cfg.Kinds, cfg.Patterns)
	if err != nil {
		return nil, err
	}
	s := &Session{cfg: cfg, store: store, det: det, names: NewNameIndex(),
		fields: map[string]bool{}, allow: map[string]map[string]bool{}, kinds: map[string]bool{},
		seen: map[string]*seenValue{}}
	fields := cfg.NameFields
	if fields == nil {
		fields = DefaultNameFields
	}
	for _, f := range fields {
		s.fields[fieldKey(f)] = true
	}
	for _, f := range cfg.Flows {
		if s.allow[f.From] == nil {
			s.allow[f.From] = map[string]bool{}
		}
		for _, to := range f.To {
			s.allow[f.From][to] = true
		}
	}
	for _, k := range BuiltinKinds {
		s.kinds[k] = det.Enabled(k)
	}
	for _, p := range cfg.Patterns {
		s.kinds[p.Kind] = true
	}
	if cfg.Tokenize {
		if store == nil {
			return nil, fmt.Errorf("privacy: tokenizing needs a token store")
		}
		if err := store.loadNames(s.names); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Tokenizing reports whether the session replaces values by tokens.
func (s *Session) Tokenizing() bool { return s.cfg.Tokenize }

// Caller wraps inner: arguments are detokenized and checked against the
// flow rules before anything is sent, and every result is learned from.
func (s *Session) Caller(inner mcptool.Caller) mcptool.Caller { return &guard{s: s, inner: inner} }

type guard struct {
	s     *Session
	inner mcptool.Caller
}

func (g *guard) Tools(ctx context.Context, server string) ([]mcptool.Tool, error) {
	return g.inner.Tools(ctx, server)
}

func (g *guard) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (*mcptool.Result, error) {
	if err := g.s.checkTokenFlows(server, tool, args); err != nil {
		return nil, err
	}
	args, tokens, err := g.s.detokenize(server, tool, args)
	if err != nil {
		return nil, err
	}
	if len(tokens) > 0 {
		ctx = mcptool.WithSubstituted(ctx, tokens)
	}
	if err := g.s.checkFlows(server, tool, args); err != nil {
		return nil, err
	}
	res, err := g.inner.CallTool(ctx, server, tool, args)
	if res != nil {
		g.s.learn(server, res)
	}
	return res, err
}

// --- tokens in arguments ---

// findTokens returns the spans of the tokens in s whose kind is known.
func (s *Session) findTokens(str string) [][2]int {
	var spans [][2]int
	for i := 0; i < len(str); i++ {
		if str[i] != '[' {
			continue
		}
		j := i + 1
		for j < len(str) && (str[j] >= 'A' && str[j] <= 'Z' || isDigit(str[j]) || str[j] == '_') && j-i < 48 {
			j++
		}
		if j >= len(str) || str[j] != ']' {
			continue
		}
		body := str[i+1 : j]
		u := strings.LastIndexByte(body, '_')
		if u <= 0 || u == len(body)-1 || body[u+1] == '0' || !s.kinds[body[:u]] {
			continue
		}
		if _, err := strconv.Atoi(body[u+1:]); err != nil {
			continue
		}
		spans = append(spans, [2]int{i, j + 1})
		i = j
	}
	return spans
}

// detokenize replaces the tokens in the strings of args by their values;
// it returns the tokens it replaced, sorted.
func (s *Session) detokenize(server, tool string, args json.RawMessage) (json.RawMessage, []string, error) {
	if !s.cfg.Tokenize || !bytes.Contains(args, []byte("_")) || !json.Valid(args) {
		return args, nil, nil
	}
	var replaced []string
	out, err := rewriteStrings(args, func(str string) (string, error) {
		spans := s.findTokens(str)
		if len(spans) == 0 {
			return str, nil
		}
		var b strings.Builder
		last := 0
		for _, sp := range spans {
			tok := str[sp[0]:sp[1]]
			e, ok, err := s.store.lookupToken(tok)
			if err != nil {
				return "", fmt.Errorf("%w: %s.%s was not called: %v", mcptool.ErrPolicy, server, tool, err)
			}
			if !ok {
				return "", fmt.Errorf("%w: %s.%s was not called: the token %s is not in this workspace's token store "+
					"(it was cleared with `mcpcode privacy forget`, dropped as the least recently used, or never issued); "+
					"nothing was sent. Run a program that reads the value again to get its current token", mcptool.ErrPolicy, server, tool, tok)
			}
			b.WriteString(str[last:sp[0]])
			b.WriteString(e.Value)
			last = sp[1]
			if !slices.Contains(replaced, tok) {
				replaced = append(replaced, tok)
			}
			s.note(e.Key, e.Kind, e.Value, "")
		}
		b.WriteString(str[last:])
		return b.String(), nil
	})
	if err != nil {
		return nil, nil, err
	}
	slices.Sort(replaced)
	return out, replaced, nil
}

// --- flows ---

// checkFlows refuses arguments that carry a value from a server whose
// rules do not allow sending it to server.
func (s *Session) checkFlows(server, tool string, args json.RawMessage) error {
	if len(s.allow) == 0 {
		return nil
	}
	var err error
	eachString(args, func(path, str string) bool { // keys and repeated keys too (provenance.go)
		for _, m := range s.det.Find(str, s.names) {
			for _, from := range s.origins(m.Key) {
				if from == server {
					continue
				}
				allowed, restricted := s.allow[from]
				if !restricted || allowed[server] {
					continue
				}
				err = s.flowError(server, tool, path, m.Start == 0 && m.End == len(str), m.Kind, from)
				return false
			}
		}
		return true
	})
	return err
}

func (s *Session) flowError(server, tool, path string, whole bool, kind, from string) error {
	to := slices.Sorted(func(yield func(string) bool) {
		for t := range s.allow[from] {
			if !yield(t) {
				return
			}
		}
	})
	quoted := make([]string, len(to))
	for i, t := range to {
		quoted[i] = strconv.Quote(t)
	}
	where := "is"
	if !whole {
		where = "holds"
	}
	if path == "" {
		path = "(the arguments)"
	}
	return fmt.Errorf("%w: %s.%s was not called: the argument %s %s %s that came from %s, and the flow rule "+
		`{"from": %q, "to": [%s]} (privacy.flows in mcp.json) does not allow sending %s data to %s; nothing was sent`,
		mcptool.ErrPolicy, server, tool, path, where, article(kind), from, from, strings.Join(quoted, ", "), from, server)
}

func article(kind string) string {
	switch kind {
	case KindEmail, KindIBAN, KindIP:
		return "an " + kind
	}
	return "a " + kind
}

// origins returns the servers a value came from, in this run or before.
func (s *Session) origins(key string) []string {
	s.mu.Lock()
	var from []string
	if v, ok := s.seen[key]; ok {
		from = slices.Clone(v.from)
	}
	s.mu.Unlock()
	if s.store != nil {
		for _, f := range s.store.origins(key) {
			if !slices.Contains(from, f) {
				from = append(from, f)
			}
		}
	}
	slices.Sort(from)
	return from
}

// --- learning from results ---

// learn records the values in a tool's result as coming from server.
func (s *Session) learn(server string, res *mcptool.Result) {
	if len(res.StructuredContent) > 0 {
		if v, ok := decodeJSON(res.StructuredContent); ok {
			s.learnValue(server, v)
		}
	}
	var blocks []json.RawMessage
	if json.Unmarshal(res.Content, &blocks) != nil {
		return
	}
	for _, raw := range blocks {
		var b map[string]any
		if json.Unmarshal(raw, &b) != nil {
			continue
		}
		// The block's text as the program gets it (mcptool.Result.Text,
		// the runtime's content text): keys matched as encoding/json
		// matches struct fields, so "Text" can be the text too.
		var tb struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(raw, &tb) != nil || tb.Type != "text" {
			s.learnValue(server, b)
			continue
		}
		text := tb.Text
		if b["text"] == text {
			delete(b, "text") // learned below, once
		}
		s.learnValue(server, b) // every other value of the block
		if len(res.StructuredContent) > 0 && text == string(res.StructuredContent) {
			continue // the same JSON, already learned
		}
		if looksJSON(text) {
			if v, ok := decodeJSON([]byte(text)); ok {
				s.learnValue(server, v)
				continue
			}
		}
		s.learnText(server, text)
	}
}

func (s *Session) learnValue(server string, v any) {
	walkValue(v, s.fields, func(str string) { s.learnText(server, str) }, func(value string, minWords int) {
		if !s.det.Enabled(KindName) {
			return
		}
		if key, ok := s.names.Add(value, minWords); ok {
			s.note(key, KindName, strings.Join(strings.Fields(value), " "), server)
		}
	})
}

func (s *Session) learnText(server, text string) {
	for _, m := range s.det.Find(text, s.names) {
		s.note(m.Key, m.Kind, text[m.Start:m.End], server)
	}
}

// note records a value and, when from is not "", the server it came from.
func (s *Session) note(key, kind, value, from string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.seen[key]
	if !ok {
		v = &seenValue{kind: kind, value: value}
		s.seen[key] = v
		s.order = append(s.order, key)
	}
	if from != "" && !slices.Contains(v.from, from) {
		v.from = append(v.from, from)
		slices.Sort(v.from)
	}
}

// --- tokenizing what leaves the run ---

// Redactor replaces values by tokens; it exists during Finish only.
type Redactor struct {
	s *Session
	d *storeData
}

// Text returns str with every value replaced by its token.
func (r *Redactor) Text(str string) string {
	ms := r.s.det.Find(str, r.s.names)
	if len(ms) == 0 {
		return str
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		b.WriteString(str[last:m.Start])
		b.WriteString(r.token(m.Key, m.Kind, str[m.Start:m.End]).token())
		last = m.End
	}
	b.WriteString(str[last:])
	return b.String()
}

// JSON returns raw with every value in its strings (keys included)
// replaced by its token; raw that is not JSON is treated as text.
func (r *Redactor) JSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	if !json.Valid(raw) {
		return json.RawMessage(r.Text(string(raw)))
	}
	out, err := rewriteStrings(raw, func(s string) (string, error) { return r.Text(s), nil })
	if err != nil {
		return json.RawMessage(r.Text(string(raw)))
	}
	return out
}

// token returns the entry of a value, giving it a token if it has none.
func (r *Redactor) token(key, kind, value string) *entry {
	d := r.d
	e, ok := d.byKey[key]
	if !ok {
		d.Next[kind]++
		e = &entry{Kind: kind, N: d.Next[kind], Key: key, Value: value}
		d.Entries = append(d.Entries, e)
		d.byKey[key] = e
		d.byToken[e.token()] = e
	}
	r.s.mu.Lock()
	if v, ok := r.s.seen[key]; ok {
		for _, f := range v.from {
			if !slices.Contains(e.From, f) {
				e.From = append(e.From, f)
			}
		}
		slices.Sort(e.From)
	}
	r.s.mu.Unlock()
	d.Seq++
	e.Used = d.Seq
	return e
}

// Finish ends a tokenizing session: fn replaces the values in what leaves
// the run with the Redactor (tokens are numbered in the order fn asks for
// them), then every value the run saw is recorded in the store with the
// servers it came from, under the store's lock.
func (s *Session) Finish(fn func(r *Redactor)) error {
	if !s.cfg.Tokenize {
		return fmt.Errorf("privacy: Finish on a session that does not tokenize")
	}
	return s.store.update(func(d *storeData) {
		r := &Redactor{s: s, d: d}
		fn(r)
		s.mu.Lock()
		order := slices.Clone(s.order)
		s.mu.Unlock()
		for _, key := range order {
			s.mu.Lock()
			v := s.seen[key]
			s.mu.Unlock()
			r.token(key, v.kind, v.value)
		}
	})
}
