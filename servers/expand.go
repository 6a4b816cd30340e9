package servers

import (
	"fmt"
	"strings"
)

// expander replaces ${VAR} and ${VAR:-default} in config values. It keeps the
// first error so that a caller can expand every field and check once.
type expander struct {
	where  string // e.g. `mcp.json: server "crm"`
	lookup func(string) (string, bool)
	err    error
}

// expand returns s with every ${...} replaced; field names the place in
// messages ("headers.Authorization"). A "$" not followed by "{" is literal.
func (x *expander) expand(field, s string) string {
	if x.err != nil || !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			x.fail(fmt.Errorf("%s: %s has an unclosed \"${\"; write ${NAME}", x.where, field))
			return ""
		}
		ref := s[i+2 : i+end]
		name, def, hasDefault := strings.Cut(ref, ":-")
		if !validVarName(name) {
			x.fail(fmt.Errorf("%s: %s has an invalid variable reference \"${%s}\"; write ${NAME} or ${NAME:-default}", x.where, field, ref))
			return ""
		}
		val, ok := x.lookup(name)
		switch {
		case ok && (val != "" || !hasDefault):
			b.WriteString(val)
		case hasDefault:
			b.WriteString(def)
		default:
			x.fail(fmt.Errorf("%s: environment variable %s is not set (used in %s); set it, or write ${%s:-default}", x.where, name, field, name))
			return ""
		}
		s = s[i+end+1:]
	}
}

// expandMap expands every value of m; keys are used verbatim.
func (x *expander) expandMap(field string, m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for _, k := range sortedKeys(m) {
		out[k] = x.expand(field+"."+k, m[k])
	}
	return out
}

func (x *expander) fail(err error) {
	if x.err == nil {
		x.err = err
	}
}

func validVarName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
