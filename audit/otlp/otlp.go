// Package otlp exports audit records as OpenTelemetry traces: one trace
// per run, its root span the run, a child span per tool call. Spans are made,
// batched and retried by the official Go SDK (go.opentelemetry.io/otel/sdk);
// they travel over OTLP/HTTP with the JSON encoding (HTTPExporter), the
// standard variables configuring it: OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, ..._HEADERS, ..._TIMEOUT,
// ..._COMPRESSION, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES.
//
// Why not the SDK's otlptracehttp exporter: it links gRPC and protobuf into
// every mcpcode, whose package initialisers then run at each start whether
// traces are exported or not (71 more package inits, about 6 ms, 230 KB and
// 1,900 allocations, and 6.6 MB of binary; see docs/BENCHMARKS.md). The SDK
// costs little (its inits allocate about 10 KB). The JSON encoding is
// OTLP's own (every collector's OTLP/HTTP receiver takes it), and a test
// decodes what this package sends with the official OTLP protobuf
// definitions.
//
// Spans carry what the audit record holds minus its text: ids, hashes,
// names, outcomes, sizes and the error kind, never an error message.
package otlp

import (
	"context"
	"strings"
	"time"

	"github.com/mcpcode/mcpcode/audit"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Enabled reports whether the environment asks for trace export: an OTLP
// endpoint is set, the SDK is not disabled and the traces exporter is not
// "none".
func Enabled(lookup func(string) (string, bool)) bool {
	if v, _ := lookup("OTEL_SDK_DISABLED"); strings.EqualFold(strings.TrimSpace(v), "true") {
		return false
	}
	if v, _ := lookup("OTEL_TRACES_EXPORTER"); strings.EqualFold(strings.TrimSpace(v), "none") {
		return false
	}
	for _, k := range []string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"} {
		if v, ok := lookup(k); ok && strings.TrimSpace(v) != "" {
			return true
		}
	}
	return false
}

// Exporter turns audit records into spans.
type Exporter struct {
	tp     *sdktrace.TracerProvider
	tracer trace.Tracer
}

// New returns an exporter that sends spans over OTLP/HTTP in batches, as
// the standard variables (looked up with lookup) configure it.
func New(lookup func(string) (string, bool), version string) (*Exporter, error) {
	exp, err := NewHTTPExporter(lookup)
	if err != nil {
		return nil, err
	}
	return newExporter(sdktrace.WithBatcher(exp), resourceOf(lookup, version)), nil
}

// NewWith returns an exporter that hands every span to exp as soon as it
// ends (tests use the SDK's in-memory exporter).
func NewWith(exp sdktrace.SpanExporter, version string) *Exporter {
	return newExporter(sdktrace.WithSyncer(exp), resourceOf(func(string) (string, bool) { return "", false }, version))
}

func newExporter(opt sdktrace.TracerProviderOption, res *resource.Resource) *Exporter {
	tp := sdktrace.NewTracerProvider(opt, sdktrace.WithResource(res))
	return &Exporter{tp: tp, tracer: tp.Tracer("github.com/mcpcode/mcpcode/audit")}
}

// resourceOf describes this process: service.name mcpcode (or
// OTEL_SERVICE_NAME), its version, and OTEL_RESOURCE_ATTRIBUTES.
func resourceOf(lookup func(string) (string, bool), version string) *resource.Resource {
	attrs := map[string]string{"service.name": "mcpcode", "service.version": version,
		"telemetry.sdk.name": "opentelemetry", "telemetry.sdk.language": "go", "telemetry.sdk.version": sdk.Version()}
	if v, _ := lookup("OTEL_RESOURCE_ATTRIBUTES"); v != "" {
		for k, val := range parsePairs(v) {
			attrs[k] = val
		}
	}
	if v, _ := lookup("OTEL_SERVICE_NAME"); strings.TrimSpace(v) != "" {
		attrs["service.name"] = strings.TrimSpace(v)
	}
	kvs := make([]attribute.KeyValue, 0, len(attrs))
	for k, v := range attrs {
		kvs = append(kvs, attribute.String(k, v))
	}
	return resource.NewSchemaless(kvs...)
}

// Export records one run as a trace.
func (e *Exporter) Export(rec audit.Record) {
	start := rec.Time
	attrs := []attribute.KeyValue{
		attribute.String("mcpcode.run.id", rec.ID),
		attribute.String("mcpcode.who.face", rec.Who.Face),
		attribute.String("mcpcode.program.sha256", rec.Program.SHA256),
		attribute.Int("mcpcode.program.bytes", rec.Program.Bytes),
		attribute.String("mcpcode.privacy", rec.Privacy),
		attribute.Bool("mcpcode.run.ok", rec.OK),
		attribute.Int("mcpcode.run.tool_calls", len(rec.Calls)),
		attribute.Int("mcpcode.run.result_bytes", rec.ResultBytes),
		attribute.Int("mcpcode.run.log_bytes", rec.LogBytes),
	}
	add := func(k, v string) {
		if v != "" {
			attrs = append(attrs, attribute.String(k, v))
		}
	}
	add("mcpcode.who.client", rec.Who.Client)
	add("mcp.session.id", rec.Who.Session)
	add("mcpcode.program.entry", rec.Program.Entry)
	add("mcpcode.skill", rec.Program.Skill)
	if len(rec.Limits) > 0 {
		attrs = append(attrs, attribute.StringSlice("mcpcode.run.limits", rec.Limits))
	}
	name := "mcpcode run"
	if rec.Program.Skill != "" {
		name += " " + rec.Program.Skill
	}
	ctx, root := e.tracer.Start(context.Background(), name, trace.WithNewRoot(), trace.WithTimestamp(start),
		trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	if rec.Error != nil {
		root.SetAttributes(attribute.String("error.type", rec.Error.Kind))
		if rec.Error.Limit != "" {
			root.SetAttributes(attribute.String("mcpcode.run.limit", rec.Error.Limit))
		}
		root.SetStatus(codes.Error, rec.Error.Kind)
	}
	for _, c := range rec.Calls {
		cs := start.Add(time.Duration(c.StartMs) * time.Millisecond)
		method, spanName, tool := "tools/call", "tools/call "+c.Server+"."+c.Tool, []attribute.KeyValue{attribute.String("gen_ai.tool.name", c.Tool)}
		if c.Op != "" {
			method, spanName, tool = c.Op, c.Op+" "+c.Server, nil
		}
		_, span := e.tracer.Start(ctx, spanName, trace.WithTimestamp(cs),
			trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(tool...), trace.WithAttributes(
				attribute.String("mcp.method.name", method),
				attribute.String("mcpcode.server", c.Server),
				attribute.String("mcpcode.call.outcome", c.Outcome),
				attribute.String("mcpcode.call.args_digest", c.Args),
				attribute.Int("mcpcode.call.arg_bytes", c.ArgBytes),
				attribute.Int64("mcpcode.call.result_bytes", c.Bytes),
			))
		if c.Outcome != audit.OutcomeOK {
			span.SetAttributes(attribute.String("error.type", c.Outcome))
			span.SetStatus(codes.Error, c.Outcome)
		}
		span.End(trace.WithTimestamp(cs.Add(time.Duration(c.Ms) * time.Millisecond)))
	}
	root.End(trace.WithTimestamp(start.Add(time.Duration(rec.Ms) * time.Millisecond)))
}

// Shutdown sends the spans still waiting and stops the exporter.
func (e *Exporter) Shutdown(ctx context.Context) error { return e.tp.Shutdown(ctx) }
