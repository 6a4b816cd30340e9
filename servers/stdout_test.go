package servers

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadLineLong: lines of any length, over many of the reader's
// buffers and past hugeheap.LargeBytes, come back whole and each in a
// buffer of its own; a last line without a newline comes with io.EOF.
func TestReadLineLong(t *testing.T) {
	t.Parallel()
	lines := []string{"a\n", strings.Repeat("x", 200<<10) + "\n", "\n", strings.Repeat("y", 3<<20) + "\n", "tail"}
	for _, r := range []io.Reader{strings.NewReader(strings.Join(lines, "")), iotest.HalfReader(strings.NewReader(strings.Join(lines, "")))} {
		f := newStdoutFilter(r, func([]byte) {})
		var got [][]byte
		for {
			line, err := f.readLine()
			got = append(got, line)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if len(got) != len(lines) {
			t.Fatalf("%d lines, want %d", len(got), len(lines))
		}
		for i, l := range got {
			if string(l) != lines[i] {
				t.Errorf("line %d: %d bytes, want %d", i, len(l), len(lines[i]))
			}
		}
		got[1][0] = 'z' // buffers of their own
		if bytes.ContainsRune(got[3], 'z') || got[0][0] != 'a' {
			t.Error("lines share a buffer")
		}
	}
}
