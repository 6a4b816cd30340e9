package demo

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestNames(t *testing.T) {
	want := []string{"google-drive", "salesforce", "slack"}
	if got := Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
}

func TestNewUnknownName(t *testing.T) {
	srv, err := New("dropbox")
	if err == nil || srv != nil {
		t.Fatalf("New(dropbox) = %v, %v; want nil and an error", srv, err)
	}
	for _, want := range []string{`"dropbox"`, "google-drive, salesforce, slack"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

func TestServerInfo(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			init := connect(t, name).InitializeResult()
			if init == nil || init.ServerInfo == nil {
				t.Fatal("no initialize result")
			}
			if got, want := init.ServerInfo.Name, "demo-"+name; got != want {
				t.Errorf("server name = %q, want %q", got, want)
			}
			if got := init.ServerInfo.Version; got != "1.0.0" {
				t.Errorf("server version = %q, want 1.0.0", got)
			}
			if !strings.Contains(init.Instructions, "synthetic") {
				t.Errorf("instructions do not say the data are synthetic: %q", init.Instructions)
			}
		})
	}
}

func TestServeEnds(t *testing.T) {
	tests := []struct {
		name string
		stop func(cancel context.CancelFunc, cs *mcp.ClientSession)
	}{
		{"client disconnects", func(_ context.CancelFunc, cs *mcp.ClientSession) { cs.Close() }},
		{"context cancelled", func(cancel context.CancelFunc, _ *mcp.ClientSession) { cancel() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			serverT, clientT := mcp.NewInMemoryTransports()
			done := make(chan error, 1)
			go func() { done <- Serve(ctx, "slack", serverT) }()
			client := mcp.NewClient(&mcp.Implementation{Name: "demo-test", Version: "0.0.0"}, nil)
			cs, err := client.Connect(context.Background(), clientT, nil)
			if err != nil {
				t.Fatalf("client connect: %v", err)
			}
			callOK(t, cs, "getChannelHistory", map[string]any{"channel": "C123456"}, nil)
			tt.stop(cancel, cs)
			if err := <-done; err != nil {
				t.Errorf("Serve returned %v, want nil", err)
			}
			cs.Close()
		})
	}
}

func TestServeUnknownName(t *testing.T) {
	serverT, _ := mcp.NewInMemoryTransports()
	if err := Serve(context.Background(), "nope", serverT); err == nil || !strings.Contains(err.Error(), "unknown demo server") {
		t.Errorf("Serve(nope) = %v, want an unknown demo server error", err)
	}
}
