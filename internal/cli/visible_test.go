package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/internal/mcptest"
)

// hidden are characters that act on a terminal or hide in text; nothing
// mcpcode prints that came from a program or a server may hold them raw.
var hidden = []string{"\x1b", "\u009b", "\u202e", "\u2066", "\u200b", "\u2028", "\r", "\x07"}

func holdsHidden(t *testing.T, what, out string) {
	t.Helper()
	for _, c := range hidden {
		if strings.Contains(out, c) {
			t.Errorf("%s holds %q raw:\n%q", what, c, out)
		}
	}
}

const evilText = "a\x1b[2Kb\u009b31mc\u202ed\u2066e\u200bf\u2028g\rh\x07i"

// evilShown is evilText as mcpcode shows it.
const evilShown = `a\u001b[2Kb\u009b31mc\u202ed\u2066e\u200bf\u2028g\rh\u0007i`

// TestPrintedTextIsVisible: what a program logs and returns, and what a
// server says about itself and its tools, is printed with every control
// and format character escaped, on a terminal and in --json (where the
// escapes decode back to the same text).
func TestPrintedTextIsVisible(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	ws := t.TempDir()
	tool, _ := json.Marshal(map[string]any{"name": "ping" + "\u202e", "description": evilText + "\nsecond line",
		"inputSchema": map[string]any{"type": "object"}, "annotations": map[string]any{"readOnlyHint": true}})
	ta.fakes.set("evil", &mcptest.RawServer{Name: "evil" + evilText, Version: "1" + evilText, Tools: []json.RawMessage{tool}})
	writeConfig(t, ws, "evil")

	prog := filepath.Join(ws, "prog.ts")
	writeFile(t, prog, "console.log("+jsString(evilText)+");\nexport default { text: "+jsString(evilText)+" };\n")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"run", []string{"run", "--dir", ws, "--isolation", "none", prog}, evilShown},
		{"tools", []string{"tools", "--dir", ws}, `ping\u202e  ` + `a\u001b[2Kb\u009b31mc\u202ed\u2066e\u200bf\u2028g\rh\u0007i`},
		{"servers", []string{"servers", "--dir", ws}, `evil` + evilShown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ta.stdout.buf.Reset()
			ta.stderr.buf.Reset()
			if code := ta.run(tc.args...); code != exitOK {
				t.Fatalf("exit %d\n%s%s", code, ta.stdout, ta.stderr)
			}
			out := ta.stdout.String() + ta.stderr.String()
			holdsHidden(t, tc.name, out)
			if !strings.Contains(out, tc.want) {
				t.Errorf("%s output lacks %q:\n%s", tc.name, tc.want, out)
			}

			ta.stdout.buf.Reset()
			if code := ta.run(append(tc.args, "--json")...); code != exitOK {
				t.Fatalf("--json: exit %d\n%s", code, ta.stderr)
			}
			holdsHidden(t, tc.name+" --json", ta.stdout.String())
			var v any
			if err := json.Unmarshal([]byte(ta.stdout.String()), &v); err != nil {
				t.Fatalf("--json output is not JSON: %v", err)
			}
			if raw, _ := json.Marshal(v); !strings.Contains(string(raw), `\u001b[2Kb`) || !strings.Contains(ta.stdout.String(), `\u202e`) {
				t.Errorf("--json does not carry the text (decoded: %s)", raw)
			}
		})
	}
}

// jsString is s as a JavaScript string literal with every character that
// is not printable ASCII escaped, so that the program's source is plain.
func jsString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			fmt.Fprintf(&b, `\u{%x}`, r)
			continue
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// TestRecordAndReplay: `run --record FILE` writes the run's calls and
// results; `run --replay FILE` answers them without any server, and a
// call the recording does not hold is an error.
func TestRecordAndReplay(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	ws := t.TempDir()
	ta.fakes.set("echo", &mcptest.RawServer{Name: "echo", Version: "1", Tools: []json.RawMessage{
		json.RawMessage(`{"name":"ping","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`)}})
	writeConfig(t, ws, "echo")
	prog := filepath.Join(ws, "prog.ts")
	writeFile(t, prog, `import { callMCPTool } from "mcpcode:runtime";
export default async (input: { n: number }) => (await callMCPTool<any>("echo", "ping", { n: input.n })).text;`)
	rec := filepath.Join(ws, "rec.json")
	if code := ta.run("run", "--dir", ws, "--input", `{"n":1}`, "--record", rec, prog); code != exitOK {
		t.Fatalf("record: exit %d\n%s%s", code, ta.stdout, ta.stderr)
	}
	recorded := ta.stdout.String()
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"mcpcode": "recording/1"`) || !strings.Contains(string(data), `"server":"echo","tool":"ping","args":{"n":1}`) {
		t.Errorf("recording:\n%s", data)
	}
	// No server answers now: the recording does.
	ta.fakes.set("echo", nil)
	ta.stdout.buf.Reset()
	if code := ta.run("run", "--dir", ws, "--input", `{"n":1}`, "--replay", rec, prog); code != exitOK {
		t.Fatalf("replay: exit %d\n%s%s", code, ta.stdout, ta.stderr)
	}
	if got := ta.stdout.String(); got != recorded {
		t.Errorf("replayed output %q, recorded %q", got, recorded)
	}
	ta.stdout.buf.Reset()
	ta.stderr.buf.Reset()
	if code := ta.run("run", "--dir", ws, "--input", `{"n":2}`, "--replay", rec, prog); code != exitFailure {
		t.Fatalf("replay of another call: exit %d, want 1", code)
	}
	if !strings.Contains(ta.stderr.String(), `replaying: the recording has no (further) call of echo.ping with the arguments {"n":2}`) {
		t.Errorf("replay of another call:\n%s", ta.stderr)
	}
}
