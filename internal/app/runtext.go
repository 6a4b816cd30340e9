package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpcode/mcpcode/runtime"
)

// RunOutput is what a run gives back to whoever started it, as text: what
// it logged (levels other than log and info marked, "[warn] ...") and then
// its result as indented JSON (compact when indenting would blow a deeply
// nested result up past maxIndentedResult). Every face shows runs this way.
func RunOutput(res *runtime.Result) string {
	var out bytes.Buffer
	for _, l := range res.Logs {
		if l.Level != "log" && l.Level != "info" && l.Level != "server" { // a server's notice is marked in its text
			fmt.Fprintf(&out, "[%s] ", l.Level)
		}
		out.WriteString(l.Text)
		out.WriteByte('\n')
	}
	if res.OK && len(res.Result) > 0 && string(res.Result) != "null" {
		out.WriteString(showResult(res.Result))
		out.WriteByte('\n')
	}
	return out.String()
}

// RunErrorText is a failed run's error as text ("KIND error: MESSAGE" and
// the stack mapped to the program's lines), or "" when the run succeeded.
func RunErrorText(res *runtime.Result) string {
	e := res.Error
	if e == nil {
		return ""
	}
	indent := func(s string) string { return strings.ReplaceAll(s, "\n", "\n  ") }
	switch {
	case e.Stack == "":
		return fmt.Sprintf("%s error: %s\n", e.Kind, indent(e.Message))
	case strings.HasPrefix(e.Stack, e.Message):
		// A JavaScript stack starts with the message.
		return fmt.Sprintf("%s error: %s\n", e.Kind, e.Stack)
	case strings.Contains(e.Stack, e.Message):
		// Bundling diagnostics: position, message, source line.
		return fmt.Sprintf("%s error: %s\n", e.Kind, e.Stack)
	}
	return fmt.Sprintf("%s error: %s\n%s\n", e.Kind, indent(e.Message), e.Stack)
}

// maxIndentedResult bounds the text of an indented result. Indenting
// costs the nesting depth on every line, so a small result nested
// thousands of levels deep would take hundreds of megabytes; such a result
// is shown as it came, compact.
const maxIndentedResult = 2 * runtime.MaxResultBytes

// showResult is a run's result as text: indented, as
// every face prints it, unless that would take more than
// maxIndentedResult bytes.
func showResult(raw json.RawMessage) string {
	if indentedSize(raw) > maxIndentedResult {
		return string(raw)
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, raw, "", "  ") != nil {
		return string(raw)
	}
	return pretty.String()
}

// indentedSize is at least the size of raw indented by two spaces per
// level, found in one pass without building it.
func indentedSize(raw []byte) int64 {
	var size, depth int64
	inString, escaped := false, false
	for _, c := range raw {
		if inString {
			size++
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
			size++
		case '{', '[':
			depth++
			size += 2 + 2*depth
		case '}', ']':
			depth--
			size += 2 + 2*depth
		case ',':
			size += 2 + 2*depth
		case ':':
			size += 2
		case ' ', '\t', '\n', '\r':
		default:
			size++
		}
	}
	return size
}
