package otlp

import (
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/audit"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	collectorpb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

func env(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestEnabled(t *testing.T) {
	for _, c := range []struct {
		env  []string
		want bool
	}{
		{nil, false},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318"}, true},
		{[]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://c:4318/v1/traces"}, true},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", " "}, false},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318", "OTEL_SDK_DISABLED", "true"}, false},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318", "OTEL_TRACES_EXPORTER", "none"}, false},
	} {
		if got := Enabled(env(c.env...)); got != c.want {
			t.Errorf("Enabled(%v) = %v, want %v", c.env, got, c.want)
		}
	}
}

// record is a run with three calls, one of which failed.
func record(id string, start time.Time) audit.Record {
	return audit.Record{ID: id, Time: start, Ms: 900, Who: audit.Who{Face: audit.FaceServe, Client: "claude-code", Session: "s-1"},
		Program: audit.Program{Skill: "lead-sync", SHA256: "ab12", Bytes: 300}, Privacy: "tokenize", OK: false,
		Error: &audit.Error{Kind: "policy", Message: "not exported"},
		Calls: []audit.Call{
			{Server: "google-drive", Tool: "getSheet", Args: "d1", StartMs: 5, Ms: 100, Outcome: audit.OutcomeOK, Bytes: 2 << 20},
			{Server: "salesforce", Tool: "updateRecord", Args: "d2", StartMs: 110, Ms: 20, Outcome: audit.OutcomeOK, Bytes: 40},
			{Server: "slack", Tool: "postMessage", Args: "d3", StartMs: 140, Ms: 0, Outcome: audit.OutcomePolicy},
		}}
}

// TestOneTracePerRun: with the SDK's in-memory exporter, each run is one
// trace: a root span and a child per call, at the recorded times.
func TestOneTracePerRun(t *testing.T) {
	mem := tracetest.NewInMemoryExporter()
	e := NewWith(mem, "test")
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	e.Export(record("run-1", start))
	e.Export(record("run-2", start.Add(time.Second)))
	spans := mem.GetSpans() // exported as each span ended; Shutdown would reset the exporter
	if err := e.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	traces := map[string][]tracetest.SpanStub{}
	for _, s := range spans {
		traces[s.SpanContext.TraceID().String()] = append(traces[s.SpanContext.TraceID().String()], s)
	}
	if len(spans) != 8 || len(traces) != 2 {
		t.Fatalf("%d spans in %d traces, want 8 in 2", len(spans), len(traces))
	}
	for _, ss := range traces {
		var root tracetest.SpanStub
		for _, s := range ss {
			if !s.Parent.IsValid() {
				root = s
			}
		}
		if root.Name != "mcpcode run lead-sync" || root.Status.Code != codes.Error || !root.StartTime.Equal(start) && !root.StartTime.Equal(start.Add(time.Second)) {
			t.Errorf("root %s, status %v, start %v", root.Name, root.Status, root.StartTime)
		}
		var names []string
		for _, s := range ss {
			if s.Parent.IsValid() {
				if s.Parent.SpanID() != root.SpanContext.SpanID() {
					t.Errorf("%s is not a child of the run", s.Name)
				}
				names = append(names, s.Name)
			}
		}
		slices.Sort(names)
		want := []string{"tools/call google-drive.getSheet", "tools/call salesforce.updateRecord", "tools/call slack.postMessage"}
		if !slices.Equal(names, want) {
			t.Errorf("children %q", names)
		}
		for _, kv := range root.Attributes {
			if strings.Contains(kv.Value.Emit(), "not exported") {
				t.Errorf("the error message was exported: %v", kv)
			}
		}
	}
}

// collector is an OTLP/HTTP receiver that decodes requests with the
// official protobuf definitions.
type collector struct {
	mu       sync.Mutex
	requests []*collectorpb.ExportTraceServiceRequest
	headers  []http.Header
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/json" {
		http.Error(w, "unexpected "+r.URL.Path+" "+r.Header.Get("Content-Type"), http.StatusBadRequest)
		return
	}
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	raw, _ := io.ReadAll(body)
	raw, err := hexIDsToBase64(raw)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req collectorpb.ExportTraceServiceRequest
	if err := protojson.Unmarshal(raw, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	c.requests = append(c.requests, &req)
	c.headers = append(c.headers, r.Header.Clone())
	c.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{}`)
}

// hexIDsToBase64 turns OTLP/JSON's hex trace and span ids into the base64
// of protobuf's JSON mapping, as a collector's OTLP/JSON decoder does (the
// one difference between the two encodings): an id that is not hex of the
// right length fails.
func hexIDsToBase64(raw []byte) ([]byte, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	var walk func(any) error
	walk = func(v any) error {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if k == "traceId" || k == "spanId" || k == "parentSpanId" {
					b, err := hex.DecodeString(e.(string))
					if err != nil || (k == "traceId" && len(b) != 16) || (k != "traceId" && len(b) != 8) {
						return fmt.Errorf("%s %q is not OTLP/JSON hex", k, e)
					}
					x[k] = base64.StdEncoding.EncodeToString(b)
					continue
				}
				if err := walk(e); err != nil {
					return err
				}
			}
		case []any:
			for _, e := range x {
				if err := walk(e); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// TestOTLPHTTPRoundTrip sends two runs to a receiver on loopback, as a
// collector's OTLP/HTTP endpoint gets them, and reads them back with the
// official OTLP definitions: two traces, parents, kinds, times, resource.
func TestOTLPHTTPRoundTrip(t *testing.T) {
	for _, compression := range []string{"none", "gzip"} {
		t.Run(compression, func(t *testing.T) {
			c := &collector{}
			srv := httptest.NewServer(c)
			defer srv.Close()
			e, err := New(env("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL+"/", "OTEL_EXPORTER_OTLP_HEADERS", "x-team=data%20eng,authorization=Bearer t0k",
				"OTEL_EXPORTER_OTLP_COMPRESSION", compression, "OTEL_SERVICE_NAME", "mcpcode-ci"), "1.2.3")
			if err != nil {
				t.Fatal(err)
			}
			start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
			e.Export(record("run-1", start))
			e.Export(record("run-2", start.Add(time.Second)))
			if err := e.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			c.mu.Lock()
			defer c.mu.Unlock()
			if len(c.requests) == 0 {
				t.Fatal("the receiver got nothing")
			}
			if h := c.headers[0]; h.Get("X-Team") != "data eng" || h.Get("Authorization") != "Bearer t0k" {
				t.Errorf("headers %v", h)
			}
			traces := map[string]int{}
			roots := 0
			for _, req := range c.requests {
				for _, rs := range req.ResourceSpans {
					attrs := map[string]string{}
					for _, kv := range rs.Resource.Attributes {
						attrs[kv.Key] = kv.Value.GetStringValue()
					}
					if attrs["service.name"] != "mcpcode-ci" || attrs["service.version"] != "1.2.3" {
						t.Errorf("resource %v", attrs)
					}
					for _, ss := range rs.ScopeSpans {
						for _, s := range ss.Spans {
							if len(s.TraceId) != 16 || len(s.SpanId) != 8 {
								t.Fatalf("ids %x %x", s.TraceId, s.SpanId)
							}
							traces[string(s.TraceId)]++
							if len(s.ParentSpanId) == 0 {
								roots++
								if s.Kind.String() != "SPAN_KIND_INTERNAL" || s.Status.GetCode().String() != "STATUS_CODE_ERROR" || s.StartTimeUnixNano != uint64(start.UnixNano()) && s.StartTimeUnixNano != uint64(start.Add(time.Second).UnixNano()) {
									t.Errorf("root span %v", s)
								}
							} else if s.Kind.String() != "SPAN_KIND_CLIENT" {
								t.Errorf("call span kind %v", s.Kind)
							}
						}
					}
				}
			}
			if len(traces) != 2 || roots != 2 {
				t.Fatalf("%d traces, %d roots: want one trace per run (%v)", len(traces), roots, traces)
			}
			for id, n := range traces {
				if n != 4 {
					t.Errorf("trace %x has %d spans, want 4", id, n)
				}
			}
		})
	}
}

func TestHTTPExporterConfig(t *testing.T) {
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{}, "no OTLP endpoint"},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", "localhost:4318"}, "not an http(s) URL"},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4317", "OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"}, "collector's OTLP/HTTP port"},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318", "OTEL_EXPORTER_OTLP_TIMEOUT", "soon"}, "give milliseconds"},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318", "OTEL_EXPORTER_OTLP_COMPRESSION", "zstd"}, "use gzip or none"},
	} {
		_, err := NewHTTPExporter(env(c.env...))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.env, err, c.want)
		}
	}
	e, err := NewHTTPExporter(env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "https://t.example/custom"))
	if err != nil || e.url != "https://t.example/custom" {
		t.Errorf("traces endpoint: %v %v", e, err)
	}
}

// A receiver that refuses says so.
func TestHTTPExporterError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "quota exceeded", http.StatusTooManyRequests)
	}))
	defer srv.Close()
	e, err := NewHTTPExporter(env("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	mem := tracetest.NewInMemoryExporter()
	NewWith(mem, "x").Export(record("r", time.Now()))
	err = e.ExportSpans(context.Background(), mem.GetSpans().Snapshots())
	if err == nil || !strings.Contains(err.Error(), "429") || !strings.Contains(err.Error(), "quota exceeded") {
		t.Errorf("err %v", err)
	}
}
