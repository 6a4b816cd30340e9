package app

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// TestRunsExportTraces: with OTEL_EXPORTER_OTLP_ENDPOINT in the app's
// environment, each run reaches the collector as one trace (a root span
// and a span per tool call) once the app closes; with OTEL_SDK_DISABLED,
// nothing is sent.
func TestRunsExportTraces(t *testing.T) {
	var mu sync.Mutex
	traces := map[string]int{}
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var req struct {
			ResourceSpans []struct {
				ScopeSpans []struct {
					Spans []struct{ TraceID, Name string }
				}
			}
		}
		if err := json.Unmarshal(raw, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		requests++
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					traces[s.TraceID]++
				}
			}
		}
	}))
	defer srv.Close()

	prog := `import { listFiles } from "servers/google-drive/listFiles";
await listFiles({}); await listFiles({ query: "orders" });`
	quiet := &App{Environ: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + srv.URL, "OTEL_SDK_DISABLED=true"}}
	d := newLiveDemo(t, quiet, "")
	d.run(t, IsolationNone, "", prog)
	quiet.Close()

	a := &App{Environ: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + srv.URL}}
	d = newLiveDemo(t, a, "")
	for range 2 {
		if res := d.run(t, IsolationNone, "", prog); !res.OK {
			t.Fatal(res.Error)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if requests == 0 || len(traces) != 2 {
		t.Fatalf("%d requests, traces %v: want 2 traces (the disabled app sends none)", requests, traces)
	}
	for id, n := range traces {
		if n != 3 {
			t.Errorf("trace %s has %d spans, want 3 (the run and its two calls)", id, n)
		}
	}
}
