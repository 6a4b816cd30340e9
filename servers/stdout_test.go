package servers

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadLineLong: lines of any length, over many of the reader's
// buffers and past a megabyte, come back whole and each in a
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

// countingReader serves n bytes of 'x' then a newline, counting what was
// read, without holding them.
type countingReader struct{ n, served int }

func (c *countingReader) Read(p []byte) (int, error) {
	if c.served > c.n {
		return 0, io.EOF
	}
	i := 0
	for ; i < len(p) && c.served < c.n; i++ {
		p[i] = 'x'
		c.served++
	}
	if i < len(p) && c.served == c.n {
		p[i] = '\n'
		c.served++
		i++
	}
	return i, nil
}

// TestReadLineBounded: a line longer than go-sdk's bound on a frame ends
// the stream with an error before much more than the bound is read; one
// of exactly the bound is read whole.
func TestReadLineBounded(t *testing.T) {
	t.Parallel()
	src := &countingReader{n: 3 * maxLine}
	f := newStdoutFilter(src, func([]byte) {})
	if _, err := io.ReadAll(f); !errors.Is(err, errLineTooLong) {
		t.Errorf("reading a %d MiB line: %v, want errLineTooLong", src.n>>20, err)
	}
	if src.served > maxLine+128<<10 {
		t.Errorf("%d MiB read before the line was refused, want at most the bound", src.served>>20)
	}
	ok := &countingReader{n: maxLine - 1}
	line, err := newStdoutFilter(ok, func([]byte) {}).readLine()
	if err != nil || len(line) != maxLine {
		t.Errorf("a line of the bound: %d bytes, %v", len(line), err)
	}
}
