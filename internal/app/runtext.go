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
// its result as indented JSON. Every face shows runs this way.
func RunOutput(res *runtime.Result) string {
	var out bytes.Buffer
	for _, l := range res.Logs {
		if l.Level != "log" && l.Level != "info" {
			fmt.Fprintf(&out, "[%s] ", l.Level)
		}
		out.WriteString(l.Text)
		out.WriteByte('\n')
	}
	if res.OK && len(res.Result) > 0 && string(res.Result) != "null" {
		var pretty bytes.Buffer
		if json.Indent(&pretty, res.Result, "", "  ") != nil {
			pretty.Reset()
			pretty.Write(res.Result)
		}
		out.Write(pretty.Bytes())
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
