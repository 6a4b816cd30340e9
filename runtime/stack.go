package runtime

import (
	"strconv"
	"strings"

	"github.com/dop251/goja"

	"github.com/mcpcode/mcpcode/internal/lazyregexp"
)

// goja writes stack frames as "\tat fn (file:line:col(pc))", "\tat
// file:line:col(pc)" or "\tat fn (native)".
var (
	frameWithPos = lazyregexp.New(`^\s*at (?:(.*) \()?(.+):(\d+):(\d+)\(\d+\)\)?$`)
	frameNative  = lazyregexp.New(`^\s*at (?:(.*) \()?native\)?$`)
)

// cleanStack rewrites a goja stack string the way people read stacks: frames
// as "    at fn (prog.ts:12:5)" with 1-based columns in the program's own
// files, without the wrapper's and the runtime's internal frames.
func cleanStack(stack string) string {
	lines := strings.Split(strings.TrimRight(stack, "\n"), "\n")
	out := make([]string, 0, len(lines))
	for _, line := range lines {
		if m := frameWithPos.FindStringSubmatch(line); m != nil {
			file := m[2]
			if isInternalSource(file) {
				continue
			}
			l, _ := strconv.Atoi(m[3])
			c, _ := strconv.Atoi(m[4])
			out = append(out, formatFrame(m[1], file, l, c+1))
			continue
		}
		if m := frameNative.FindStringSubmatch(line); m != nil {
			if m[1] != "" {
				out = append(out, "    at "+m[1]+" (native)")
			}
			continue
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// framesStack renders captured frames (CaptureCallStack) like cleanStack.
func framesStack(header string, frames []goja.StackFrame) string {
	var b strings.Builder
	b.WriteString(header)
	for i := range frames {
		f := &frames[i]
		if f.SrcName() == "<native>" {
			continue
		}
		p := f.Position()
		if isInternalSource(p.Filename) {
			continue
		}
		b.WriteByte('\n')
		name := f.FuncName()
		if name == "<anonymous>" {
			name = ""
		}
		b.WriteString(formatFrame(name, p.Filename, p.Line, p.Column+1))
	}
	return b.String()
}

func formatFrame(fn, file string, line, col int) string {
	loc := file + ":" + strconv.Itoa(line) + ":" + strconv.Itoa(col)
	if fn == "" {
		return "    at " + loc
	}
	return "    at " + fn + " (" + loc + ")"
}

// isInternalSource reports frames that are not the program's: the bundle's
// unmapped wrapper and helper code, the virtual modules and the runtime's
// own script.
func isInternalSource(file string) bool {
	return file == bundleFileName || file == "" || strings.HasPrefix(file, "mcpcode:")
}
