package demo

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type panicInput struct {
	Boom bool `json:"boom" jsonschema:"Whether to panic"`
}

type panicOutput struct {
	OK bool `json:"ok"`
}

// TestPanicBecomesToolError checks that a panicking handler yields a tool
// error and leaves the server serving, for both registration helpers.
func TestPanicBecomesToolError(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "panic-test", Version: "0.0.0"}, nil)
	handler := func(_ context.Context, in panicInput) (panicOutput, error) {
		if in.Boom {
			var m map[string]int
			m["x"] = 1 // nil map write: a real runtime panic
		}
		return panicOutput{OK: true}, nil
	}
	addTypedTool(srv, &mcp.Tool{Name: "typed", Description: "panics on demand"}, handler)
	addTextTool(srv, &mcp.Tool{
		Name: "text", Description: "panics on demand",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"boom":{"type":"boolean"}}}`),
	}, func(ctx context.Context, in panicInput) (any, error) { return handler(ctx, in) })

	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Wait()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "demo-test", Version: "0.0.0"}, nil).Connect(context.Background(), clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	for _, tool := range []string{"typed", "text"} {
		t.Run(tool, func(t *testing.T) {
			callErr(t, cs, tool, map[string]any{"boom": true}, "internal error in demo tool "+tool, "nil map")
			var out panicOutput
			callOK(t, cs, tool, map[string]any{"boom": false}, &out)
			if !out.OK {
				t.Error("the server does not answer normally after a panic")
			}
		})
	}
}

func TestMarshalTextKeepsHTML(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{map[string]string{"text": "R&D <team>"}, `{"text":"R&D <team>"}`},
		{[]int{}, `[]`},
	}
	for _, tt := range tests {
		got, err := marshalText(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("marshalText(%v) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}
