package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// sourceMap is the subset of a version 3 source map that mcpcode reads and
// writes.
type sourceMap struct {
	Version  int      `json:"version"`
	Sources  []string `json:"sources"`
	Names    []string `json:"names"`
	Mappings string   `json:"mappings"`
}

// parseSourceMap decodes esbuild's source map.
func parseSourceMap(raw []byte) (*sourceMap, error) {
	var m sourceMap
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("reading esbuild's source map: %w", err)
	}
	if m.Version != 3 {
		return nil, fmt.Errorf("reading esbuild's source map: version %d, want 3", m.Version)
	}
	return &m, nil
}

// encode returns the map as JSON with its sources renamed, its generated
// lines shifted down by shift lines (the wrapper's first line), and its
// generated columns made 1-based: goja looks positions up with 1-based
// columns, so a 0-based map would resolve every position to the next token.
func (m *sourceMap) encode(rename func(string) string, shift int) []byte {
	out := sourceMap{Version: 3, Names: m.Names, Mappings: strings.Repeat(";", shift) + oneBasedColumns(m.Mappings)}
	if out.Names == nil {
		out.Names = []string{}
	}
	out.Sources = make([]string, len(m.Sources))
	for i, s := range m.Sources {
		out.Sources[i] = rename(s)
	}
	b, _ := json.Marshal(out) // strings and slices only: cannot fail
	return b
}

// lookup maps a 0-based generated line and column to the original source
// and its 1-based line and column, using the last segment that starts at or
// before the column. ok is false when the line has no mapping there.
func (m *sourceMap) lookup(genLine, genCol int) (source string, line, col int, ok bool) {
	lines := strings.Split(m.Mappings, ";")
	if genLine < 0 || genLine >= len(lines) {
		return "", 0, 0, false
	}
	// Source index, line and column are deltas from the previous segment
	// across lines, so every line up to genLine is decoded.
	var srcIdx, srcLine, srcCol int
	for i := 0; i <= genLine; i++ {
		gen := 0
		for _, seg := range strings.Split(lines[i], ",") {
			if seg == "" {
				continue
			}
			f, err := decodeVLQSegment(seg)
			if err != nil || len(f) == 0 {
				return "", 0, 0, false
			}
			gen += f[0]
			if len(f) < 4 {
				continue
			}
			srcIdx += f[1]
			srcLine += f[2]
			srcCol += f[3]
			if i == genLine && gen <= genCol && srcIdx >= 0 && srcIdx < len(m.Sources) {
				source, line, col, ok = m.Sources[srcIdx], srcLine+1, srcCol+1, true
			}
		}
	}
	return source, line, col, ok
}

// oneBasedColumns adds 1 to the generated column of every mapping. Columns
// are relative within a line, so only each line's first segment changes.
func oneBasedColumns(mappings string) string {
	lines := strings.Split(mappings, ";")
	for i, line := range lines {
		first, rest, _ := strings.Cut(line, ",")
		if first == "" {
			continue
		}
		f, err := decodeVLQSegment(first)
		if err != nil || len(f) == 0 {
			continue
		}
		f[0]++
		seg := encodeVLQSegment(f)
		if rest != "" {
			seg += "," + rest
		}
		lines[i] = seg
	}
	return strings.Join(lines, ";")
}

// encodeVLQSegment encodes one mappings segment.
func encodeVLQSegment(fields []int) string {
	var b strings.Builder
	for _, n := range fields {
		v := n << 1
		if n < 0 {
			v = (-n << 1) | 1
		}
		for {
			d := v & 31
			v >>= 5
			if v != 0 {
				d |= 32
			}
			b.WriteByte(base64VLQ[d])
			if v == 0 {
				break
			}
		}
	}
	return b.String()
}

const base64VLQ = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// decodeVLQSegment decodes one mappings segment into its fields.
func decodeVLQSegment(seg string) ([]int, error) {
	var out []int
	value, shift := 0, 0
	for i := 0; i < len(seg); i++ {
		d := strings.IndexByte(base64VLQ, seg[i])
		if d < 0 {
			return nil, errors.New("invalid base64 VLQ digit")
		}
		value += (d & 31) << shift
		if d&32 != 0 {
			shift += 5
			continue
		}
		n := value >> 1
		if value&1 != 0 {
			n = -n
		}
		out = append(out, n)
		value, shift = 0, 0
	}
	if shift != 0 {
		return nil, errors.New("truncated base64 VLQ")
	}
	return out, nil
}
