package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/visible"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// clientHandlers answer what upstream servers ask during a run: in a
// terminal (stdin and stderr both terminals) the person is asked, the
// requested schema rendered as a small form on stderr and the answers read
// from stdin; elsewhere requests are declined with the reason, which the
// server passes on to the program.
func (a *cli) clientHandlers() *app.ClientHandlers {
	h := &app.ClientHandlers{
		NoSample: "mcpcode has no model of its own (run the program through mcpcode serve, whose agent host can answer)",
	}
	in, ok := a.stdin.(*os.File)
	errOut, ok2 := a.terminal().(*os.File)
	if !ok || !ok2 || !isTerminal(in) || !isTerminal(errOut) {
		h.NoElicit = "mcpcode run has no terminal to ask the person in (its stdin and stderr are not both terminals)"
		return h
	}
	f := &form{in: newLineReader(in), out: a.stderr, // escaped on its way, besides the form's own escaping
		width: func() int { return terminalWidth(errOut) }}
	h.Elicit = f.ask
	return h
}

// form asks a server's elicitation questions in the terminal, one request
// at a time.
type form struct {
	mu  sync.Mutex
	in  *lineReader
	out io.Writer
	// width is the terminal's width in columns, asked at each request (nil
	// or 0: 80).
	width func() int

	w    io.Writer // what a request prints through: escaped, then rows
	rows *rowWriter
}

// lineReader reads lines on a goroutine of its own, so that a question can
// be abandoned when its request is cancelled without losing the next
// answer.
type lineReader struct {
	once  sync.Once
	r     io.Reader
	lines chan string
}

func newLineReader(r io.Reader) *lineReader { return &lineReader{r: r, lines: make(chan string)} }

func (l *lineReader) read(ctx context.Context) (string, error) {
	l.once.Do(func() {
		go func() {
			sc := bufio.NewScanner(l.r)
			for sc.Scan() {
				l.lines <- sc.Text()
			}
			close(l.lines)
		}()
	})
	if err := ctx.Err(); err != nil {
		return "", err // a line read now would be the answer to the next question
	}
	select {
	case line, ok := <-l.lines:
		if !ok {
			return "", io.EOF
		}
		return strings.TrimSpace(line), nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// formField is one property of a requested schema (MCP allows only flat
// objects of strings, numbers, booleans and enums).
type formField struct {
	Type        string   `json:"type"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Default     any      `json:"default"`
	Enum        []any    `json:"enum"`
	EnumNames   []string `json:"enumNames"`
	OneOf       []struct {
		Const any    `json:"const"`
		Title string `json:"title"`
	} `json:"oneOf"`
	Format    string   `json:"format"`
	Minimum   *float64 `json:"minimum"`
	Maximum   *float64 `json:"maximum"`
	MinLength *int     `json:"minLength"`
	MaxLength *int     `json:"maxLength"`
	MinItems  *int     `json:"minItems"`
	MaxItems  *int     `json:"maxItems"`
	Items     *struct {
		Type  string `json:"type"`
		Enum  []any  `json:"enum"`
		AnyOf []struct {
			Const any    `json:"const"`
			Title string `json:"title"`
		} `json:"anyOf"`
	} `json:"items"`
}

type formSchema struct {
	Properties map[string]formField `json:"properties"`
	Required   []string             `json:"required"`
}

// choice is one allowed value of an enum field, with its label.
type choice struct {
	value any
	label string
}

func (f formField) choices() []choice {
	var out []choice
	switch {
	case len(f.OneOf) > 0:
		for _, o := range f.OneOf {
			out = append(out, choice{o.Const, o.Title})
		}
	case len(f.Enum) > 0:
		for i, v := range f.Enum {
			label := ""
			if i < len(f.EnumNames) {
				label = f.EnumNames[i]
			}
			out = append(out, choice{v, label})
		}
	case f.Items != nil && len(f.Items.AnyOf) > 0:
		for _, o := range f.Items.AnyOf {
			out = append(out, choice{o.Const, o.Title})
		}
	case f.Items != nil:
		for _, v := range f.Items.Enum {
			out = append(out, choice{v, ""})
		}
	}
	return out
}

// formGutter starts every line of text that came from the asking server,
// so that nothing it writes can pass for a line of mcpcode's own (such as
// "mcpcode: server "bank" asks:").
const formGutter = "  │ "

// serverName is the asking server's name as the form shows it: quoted,
// with every character that is not printable escaped.
func serverName(name string) string { return strconv.Quote(name) }

// fromServer shows text that came from the server: every line behind the
// gutter, every control and format character escaped (visible.Text), and
// the line breaks visible.Text keeps (newlines) as the only ones.
func fromServer(text string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		b.WriteString(formGutter)
		b.WriteString(visible.Line(line))
		b.WriteByte('\n')
	}
	return b.String()
}

// rowWriter keeps every row the form prints within the terminal's width:
// a row that would be wider is broken by mcpcode and goes on behind the
// gutter. A terminal that wraps a long row itself goes on at the left
// edge, where the form's own lines start: a server's text padded to the
// width (spaces, or wide characters) could put a line there that names
// another server. Columns are counted high (two for every character
// that is not ASCII: a wide character takes two, a combining mark none),
// so a row is never wider than counted. What it gets is escaped already
// (visible.Writer), so that the count is of what the terminal shows.
type rowWriter struct {
	w     io.Writer
	width int // 0: 80
	col   int
}

func (r *rowWriter) Write(p []byte) (int, error) {
	width := r.width
	if width <= 0 {
		width = 80
	}
	width = max(width, gutterColumns()+16) // a row holds something besides the gutter
	var b []byte
	for i := 0; i < len(p); {
		c, size := utf8.DecodeRune(p[i:])
		if c == '\n' {
			r.col = 0
		} else if w := columns(c); r.col+w > width {
			b = append(b, '\n')
			b = append(b, formGutter...)
			r.col = gutterColumns() + w
		} else {
			r.col += w
		}
		b = append(b, p[i:i+size]...)
		i += size
	}
	if _, err := r.w.Write(b); err != nil {
		return 0, err
	}
	return len(p), nil
}

// columns is the most columns a terminal gives c (a tab moves at most
// eight).
func columns(c rune) int {
	switch {
	case c == '\t':
		return 8
	case c < utf8.RuneSelf:
		return 1
	}
	return 2
}

// gutterColumns is formGutter's width, counted as columns counts.
func gutterColumns() int {
	n := 0
	for _, c := range formGutter {
		n += columns(c)
	}
	return n
}

// errCancel ends a form the person cancelled.
var errCancel = errors.New("cancelled")

func (f *form) ask(ctx context.Context, r *app.ElicitRequest) (*mcp.ElicitResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err // abandoned while another question was out: not shown
	}
	width := 0
	if f.width != nil {
		width = f.width()
	}
	f.rows = &rowWriter{w: f.out, width: width}
	f.w = visible.NewWriter(f.rows)
	p := r.Params
	if p.Mode == "url" {
		fmt.Fprintf(f.w, "\nmcpcode: server %s asks you to open this page:\n%s%s\n", serverName(r.Server), fromServer(p.Message), fromServer(p.URL))
		ans, err := f.line(ctx, "Done? [y]es, [n]o (decline), [c]ancel: ")
		if err != nil {
			return nil, err
		}
		return &mcp.ElicitResult{Action: action(ans)}, nil
	}
	var schema formSchema
	raw, err := json.Marshal(p.RequestedSchema)
	if err == nil && string(raw) != "null" {
		err = json.Unmarshal(raw, &schema)
	}
	if err != nil {
		return nil, fmt.Errorf("the requested schema cannot be shown as a form: %w", err)
	}
	fmt.Fprintf(f.w, "\nmcpcode: server %s asks:\n%s", serverName(r.Server), fromServer(p.Message))
	if len(schema.Properties) > 0 {
		fmt.Fprintln(f.w, "  (Enter keeps the value in [brackets]; an optional question may be left empty.)")
	}
	ans, err := f.line(ctx, "Answer? [y]es, [n]o (decline), [c]ancel: ")
	if err != nil {
		return nil, err
	}
	if act := action(ans); act != "accept" {
		return &mcp.ElicitResult{Action: act}, nil
	}
	content := map[string]any{}
	for _, name := range fieldOrder(schema, r.Order) {
		v, set, err := f.field(ctx, name, schema.Properties[name], slices.Contains(schema.Required, name))
		if errors.Is(err, errCancel) {
			return &mcp.ElicitResult{Action: "cancel"}, nil
		}
		if err != nil {
			return nil, err
		}
		if set {
			content[name] = v
		}
	}
	return &mcp.ElicitResult{Action: "accept", Content: content}, nil
}

// action reads an answer to "Answer? [y]es, [n]o, [c]ancel" (yes by default).
func action(ans string) string {
	switch strings.ToLower(ans) {
	case "", "y", "yes":
		return "accept"
	case "n", "no", "decline":
		return "decline"
	}
	return "cancel"
}

// fieldOrder is the server's order of the fields when known; else the
// required fields in their listed order, then the others by name.
func fieldOrder(s formSchema, sent []string) []string {
	var out []string
	if len(sent) == len(s.Properties) {
		for _, n := range sent {
			if _, ok := s.Properties[n]; ok {
				out = append(out, n)
			}
		}
		if len(out) == len(s.Properties) {
			return out
		}
		out = nil
	}
	for _, r := range s.Required {
		if _, ok := s.Properties[r]; ok && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	var rest []string
	for n := range s.Properties {
		if !slices.Contains(out, n) {
			rest = append(rest, n)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

func (f *form) line(ctx context.Context, prompt string) (string, error) {
	fmt.Fprint(f.w, prompt)
	s, err := f.in.read(ctx)
	f.rows.col = 0 // the person's Enter ended the row
	if errors.Is(err, io.EOF) {
		fmt.Fprintln(f.w)
		return "", errCancel
	}
	return s, err
}

// field asks one question until it gets a valid answer (three tries).
func (f *form) field(ctx context.Context, name string, fd formField, required bool) (any, bool, error) {
	label := visible.Line(name)
	if fd.Title != "" && fd.Title != name {
		label = visible.Line(fd.Title) + " (" + visible.Line(name) + ")"
	}
	if d := strings.TrimSpace(fd.Description); d != "" {
		first, _, _ := strings.Cut(d, "\n")
		fmt.Fprint(f.w, fromServer(first))
	}
	choices := fd.choices()
	multi := fd.Type == "array"
	for i, c := range choices {
		text := fmt.Sprint(c.value)
		if c.label != "" && c.label != text {
			text = c.label + " (" + text + ")"
		}
		fmt.Fprintf(f.w, "    %d) %s\n", i+1, visible.Line(text))
	}
	var hint []string
	switch {
	case multi:
		hint = append(hint, "numbers separated by commas")
	case len(choices) > 0:
		hint = append(hint, "a number or a value")
	case fd.Type == "boolean":
		hint = append(hint, "yes/no")
	case fd.Type == "number" || fd.Type == "integer":
		hint = append(hint, fd.Type)
	case fd.Format != "":
		hint = append(hint, fd.Format)
	}
	if required {
		hint = append(hint, "required")
	}
	prompt := "  " + label
	if len(hint) > 0 {
		prompt += " (" + strings.Join(hint, ", ") + ")"
	}
	if fd.Default != nil {
		prompt += fmt.Sprintf(" [%s]", visible.Line(showDefault(fd.Default)))
	}
	prompt += ": "
	for range 3 {
		ans, err := f.line(ctx, prompt)
		if err != nil {
			return nil, false, err
		}
		if ans == "" {
			switch {
			case fd.Default != nil:
				return fd.Default, true, nil
			case !required:
				return nil, false, nil
			}
			fmt.Fprintln(f.w, "    an answer is required")
			continue
		}
		v, err := parseAnswer(ans, fd, choices, multi)
		if err != nil {
			fmt.Fprintf(f.w, "    %v\n", err)
			continue
		}
		return v, true, nil
	}
	return nil, false, errCancel
}

func showDefault(v any) string {
	switch d := v.(type) {
	case bool:
		if d {
			return "yes"
		}
		return "no"
	case []any:
		parts := make([]string, len(d))
		for i, x := range d {
			parts[i] = fmt.Sprint(x)
		}
		return strings.Join(parts, ", ")
	}
	return fmt.Sprint(v)
}

// parseAnswer turns a typed answer into the field's JSON value.
func parseAnswer(ans string, fd formField, choices []choice, multi bool) (any, error) {
	pick := func(s string) (any, error) {
		s = strings.TrimSpace(s)
		if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= len(choices) {
			return choices[n-1].value, nil
		}
		for _, c := range choices {
			if fmt.Sprint(c.value) == s || (c.label != "" && strings.EqualFold(c.label, s)) {
				return c.value, nil
			}
		}
		return nil, fmt.Errorf("%q is not one of the choices: give its number", s)
	}
	switch {
	case multi:
		var out []any
		for _, part := range strings.Split(ans, ",") {
			if strings.TrimSpace(part) == "" {
				continue
			}
			v, err := pick(part)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		if fd.MinItems != nil && len(out) < *fd.MinItems {
			return nil, fmt.Errorf("choose at least %d", *fd.MinItems)
		}
		if fd.MaxItems != nil && len(out) > *fd.MaxItems {
			return nil, fmt.Errorf("choose at most %d", *fd.MaxItems)
		}
		return out, nil
	case len(choices) > 0:
		return pick(ans)
	case fd.Type == "boolean":
		switch strings.ToLower(ans) {
		case "y", "yes", "true":
			return true, nil
		case "n", "no", "false":
			return false, nil
		}
		return nil, errors.New("answer yes or no")
	case fd.Type == "number" || fd.Type == "integer":
		n, err := strconv.ParseFloat(ans, 64)
		if err != nil || (fd.Type == "integer" && n != float64(int64(n))) {
			return nil, fmt.Errorf("%q is not a%s", ans, map[bool]string{true: "n integer", false: " number"}[fd.Type == "integer"])
		}
		if fd.Minimum != nil && n < *fd.Minimum {
			return nil, fmt.Errorf("the smallest allowed is %v", *fd.Minimum)
		}
		if fd.Maximum != nil && n > *fd.Maximum {
			return nil, fmt.Errorf("the largest allowed is %v", *fd.Maximum)
		}
		if fd.Type == "integer" {
			return int64(n), nil
		}
		return n, nil
	}
	if fd.MinLength != nil && len([]rune(ans)) < *fd.MinLength {
		return nil, fmt.Errorf("at least %d characters", *fd.MinLength)
	}
	if fd.MaxLength != nil && len([]rune(ans)) > *fd.MaxLength {
		return nil, fmt.Errorf("at most %d characters", *fd.MaxLength)
	}
	if fd.Format == "email" && !strings.Contains(ans, "@") {
		return nil, errors.New("not an email address")
	}
	return ans, nil
}
