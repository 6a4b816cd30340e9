package servers

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestAdversarialTapTakesInvalidJSON: the stdout filter hands every line
// to the tap before json.Valid, and mcptool.ParseCallResponse, which the
// tap uses, requires valid JSON and skips values by counting brackets. A
// line that is not JSON (and that go-sdk's path would have skipped as a
// banner) is so taken as the answer to a pending call, and bytes that are
// not JSON become the call's result in the parent: here a structured
// content `{"a":[}]`, which the recorder, privacy (learns nothing from
// it) and the worker (fails the call) then each handle differently.

func TestAdversarialTapTakesInvalidJSON(t *testing.T) {
	t.Parallel()
	c := newToolsCapture()
	slot := pendingCall(c, float64(5))
	line := `{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"hi"}],"structuredContent":{"a":[}]}}`
	if json.Valid([]byte(line)) {
		t.Fatal("precondition: the line should not be JSON")
	}
	var skipped []string
	f := newStdoutFilter(strings.NewReader(line+"\n"), func(l []byte) { skipped = append(skipped, string(l)) })
	f.tap = c.tapLine
	out, _ := io.ReadAll(f)
	res, _, filled := slot.result()
	if filled {
		t.Errorf("a line that is not JSON answered the call: go-sdk read %q, the result's structured content is %q (valid JSON: %v)",
			out, res.StructuredContent, json.Valid(res.StructuredContent))
	}
}

// endlessLine serves a JSON-RPC response whose one line is n bytes long,
// without holding it in memory, and counts what was read.
type endlessLine struct {
	head, tail string
	n, served  int
}

func (e *endlessLine) Read(p []byte) (int, error) {
	if e.served >= e.n {
		return 0, io.EOF
	}
	i := 0
	for i < len(p) && e.served < e.n {
		var n int
		switch bodyEnd := e.n - len(e.tail); {
		case e.served < len(e.head):
			n = copy(p[i:], e.head[e.served:])
		case e.served < bodyEnd:
			n = copy(p[i:min(len(p), i+bodyEnd-e.served)], xs)
		default:
			n = copy(p[i:], e.tail[e.served-bodyEnd:])
		}
		i += n
		e.served += n
	}
	return i, nil
}

var xs = bytes.Repeat([]byte("x"), 64<<10)

// TestAdversarialStdoutLineUnbounded: a stdio server's line is read whole
// into the parent's memory, whatever its length (readLine: "without limit
// on its length ... go-sdk bounds the frame itself" — but the whole line
// is in memory, three times over, before go-sdk or the tap see it, and the
// tap now replaces go-sdk's path for call results). A hostile or broken
// server can so make the parent (the process with the host's environment,
// and under `serve` a long-lived one) allocate without bound, while only
// the worker has a memory limit. Here a line of 96 MiB: a filter that
// bounds lines (at 64 MiB, the bound of a worker's messages, or less)
// fails the stream before reading all of it.

func TestAdversarialStdoutLineUnbounded(t *testing.T) {
	const size = 96 << 20
	src := &endlessLine{
		head: `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`,
		tail: `"}]}}` + "\n",
		n:    size,
	}
	f := newStdoutFilter(src, func([]byte) {})
	buf := make([]byte, 1<<20)
	var readErr error
	passed := 0
	for {
		n, err := f.Read(buf)
		passed += n
		if err != nil {
			if !errors.Is(err, io.EOF) {
				readErr = err
			}
			break
		}
	}
	if readErr == nil && src.served > 72<<20 {
		t.Errorf("the filter read a %d MiB line from the server into memory and passed %d MiB on, with no bound and no error", src.served>>20, passed>>20)
	}
}
