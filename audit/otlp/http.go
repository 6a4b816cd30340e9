package otlp

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// HTTPExporter sends spans to an OTLP/HTTP receiver with the JSON encoding
// (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding). It
// implements the SDK's SpanExporter.
type HTTPExporter struct {
	url         string
	headers     map[string]string
	timeout     time.Duration
	gzip        bool
	client      *http.Client
	maxResponse int64
}

// NewHTTPExporter configures an exporter from the standard variables.
func NewHTTPExporter(lookup func(string) (string, bool)) (*HTTPExporter, error) {
	get := func(k string) string { v, _ := lookup(k); return strings.TrimSpace(v) }
	e := &HTTPExporter{headers: map[string]string{}, timeout: 10 * time.Second, client: &http.Client{}, maxResponse: 1 << 20}
	switch p := first(get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"), get("OTEL_EXPORTER_OTLP_PROTOCOL")); p {
	case "", "http/json", "http/protobuf":
		// http/protobuf receivers take JSON on the same endpoint.
	default:
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL %q is not supported: mcpcode exports OTLP over HTTP (JSON); "+
			"point OTEL_EXPORTER_OTLP_ENDPOINT at the collector's OTLP/HTTP port (usually 4318)", p)
	}
	if u := get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"); u != "" {
		e.url = u // used as is
	} else if u := get("OTEL_EXPORTER_OTLP_ENDPOINT"); u != "" {
		e.url = strings.TrimRight(u, "/") + "/v1/traces"
	} else {
		return nil, fmt.Errorf("no OTLP endpoint: set OTEL_EXPORTER_OTLP_ENDPOINT (such as http://localhost:4318)")
	}
	if pu, err := url.Parse(e.url); err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
		return nil, fmt.Errorf("the OTLP endpoint %q is not an http(s) URL", e.url)
	}
	for k, v := range parsePairs(get("OTEL_EXPORTER_OTLP_HEADERS")) {
		e.headers[k] = v
	}
	for k, v := range parsePairs(get("OTEL_EXPORTER_OTLP_TRACES_HEADERS")) {
		e.headers[k] = v
	}
	if t := first(get("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT"), get("OTEL_EXPORTER_OTLP_TIMEOUT")); t != "" {
		ms, err := strconv.Atoi(t)
		if err != nil || ms <= 0 {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_TIMEOUT %q: give milliseconds, such as 10000", t)
		}
		e.timeout = time.Duration(ms) * time.Millisecond
	}
	switch c := first(get("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION"), get("OTEL_EXPORTER_OTLP_COMPRESSION")); c {
	case "", "none":
	case "gzip":
		e.gzip = true
	default:
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_COMPRESSION %q: use gzip or none", c)
	}
	return e, nil
}

func first(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// parsePairs parses "k1=v1,k2=v2" with URL-encoded values (W3C baggage
// style, as the OTEL_* variables are written).
func parsePairs(s string) map[string]string {
	out := map[string]string{}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			continue
		}
		if dv, err := url.PathUnescape(strings.TrimSpace(v)); err == nil {
			v = dv
		}
		out[k] = strings.TrimSpace(v)
	}
	return out
}

// ExportSpans sends one request with the spans.
func (e *HTTPExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	body, err := json.Marshal(encodeSpans(spans))
	if err != nil {
		return err
	}
	if e.gzip {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		_, _ = zw.Write(body)
		_ = zw.Close()
		body = b.Bytes()
	}
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "mcpcode-otlp")
	if e.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	for k, v := range e.headers {
		req.Header.Set(k, v)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return fmt.Errorf("exporting traces to %s: %w", e.url, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, e.maxResponse))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("exporting traces to %s: %s: %s", e.url, resp.Status, strings.TrimSpace(string(msg[:min(len(msg), 300)])))
	}
	return nil
}

// Shutdown does nothing: each export is one request.
func (e *HTTPExporter) Shutdown(context.Context) error { return nil }

// The OTLP JSON shapes (ExportTraceServiceRequest).
type (
	exportRequest struct {
		ResourceSpans []resourceSpans `json:"resourceSpans"`
	}
	resourceSpans struct {
		Resource   resourceJSON `json:"resource"`
		ScopeSpans []scopeSpans `json:"scopeSpans"`
	}
	resourceJSON struct {
		Attributes []keyValue `json:"attributes"`
	}
	scopeSpans struct {
		Scope scopeJSON  `json:"scope"`
		Spans []spanJSON `json:"spans"`
	}
	scopeJSON struct {
		Name    string `json:"name"`
		Version string `json:"version,omitempty"`
	}
	spanJSON struct {
		TraceID           string     `json:"traceId"`
		SpanID            string     `json:"spanId"`
		ParentSpanID      string     `json:"parentSpanId,omitempty"`
		Name              string     `json:"name"`
		Kind              int        `json:"kind"`
		StartTimeUnixNano string     `json:"startTimeUnixNano"`
		EndTimeUnixNano   string     `json:"endTimeUnixNano"`
		Attributes        []keyValue `json:"attributes,omitempty"`
		Status            statusJSON `json:"status"`
	}
	statusJSON struct {
		Code    int    `json:"code,omitempty"`
		Message string `json:"message,omitempty"`
	}
	keyValue struct {
		Key   string   `json:"key"`
		Value anyValue `json:"value"`
	}
	anyValue struct {
		StringValue *string     `json:"stringValue,omitempty"`
		BoolValue   *bool       `json:"boolValue,omitempty"`
		IntValue    *string     `json:"intValue,omitempty"`
		DoubleValue *float64    `json:"doubleValue,omitempty"`
		ArrayValue  *arrayValue `json:"arrayValue,omitempty"`
	}
	arrayValue struct {
		Values []anyValue `json:"values"`
	}
)

// encodeSpans groups spans by resource and scope, in the order they come.
func encodeSpans(spans []sdktrace.ReadOnlySpan) exportRequest {
	var req exportRequest
	resIndex := map[string]int{}
	scopeIndex := map[string]int{}
	for _, s := range spans {
		resKey := ""
		var resAttrs []attribute.KeyValue
		if r := s.Resource(); r != nil {
			resKey, resAttrs = r.Encoded(attribute.DefaultEncoder()), r.Attributes()
		}
		ri, ok := resIndex[resKey]
		if !ok {
			req.ResourceSpans = append(req.ResourceSpans, resourceSpans{Resource: resourceJSON{Attributes: encodeAttrs(resAttrs)}})
			ri = len(req.ResourceSpans) - 1
			resIndex[resKey] = ri
		}
		rs := &req.ResourceSpans[ri]
		sc := s.InstrumentationScope()
		scopeKey := resKey + "\x00" + sc.Name + "\x00" + sc.Version
		si, ok := scopeIndex[scopeKey]
		if !ok {
			rs.ScopeSpans = append(rs.ScopeSpans, scopeSpans{Scope: scopeJSON{Name: sc.Name, Version: sc.Version}})
			si = len(rs.ScopeSpans) - 1
			scopeIndex[scopeKey] = si
		}
		rs.ScopeSpans[si].Spans = append(rs.ScopeSpans[si].Spans, encodeSpan(s))
	}
	return req
}

func encodeSpan(s sdktrace.ReadOnlySpan) spanJSON {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	out := spanJSON{
		TraceID:           hex.EncodeToString(tid[:]),
		SpanID:            hex.EncodeToString(sid[:]),
		Name:              s.Name(),
		Kind:              spanKind(s.SpanKind()),
		StartTimeUnixNano: strconv.FormatInt(s.StartTime().UnixNano(), 10),
		EndTimeUnixNano:   strconv.FormatInt(s.EndTime().UnixNano(), 10),
		Attributes:        encodeAttrs(s.Attributes()),
	}
	if p := s.Parent(); p.IsValid() {
		psid := p.SpanID()
		out.ParentSpanID = hex.EncodeToString(psid[:])
	}
	switch st := s.Status(); st.Code {
	case codes.Error:
		out.Status = statusJSON{Code: 2, Message: st.Description}
	case codes.Ok:
		out.Status = statusJSON{Code: 1}
	}
	return out
}

// spanKind maps the API's kinds to OTLP's enum values.
func spanKind(k trace.SpanKind) int {
	switch k {
	case trace.SpanKindInternal:
		return 1
	case trace.SpanKindServer:
		return 2
	case trace.SpanKindClient:
		return 3
	case trace.SpanKindProducer:
		return 4
	case trace.SpanKindConsumer:
		return 5
	}
	return 0
}

func encodeAttrs(kvs []attribute.KeyValue) []keyValue {
	out := make([]keyValue, 0, len(kvs))
	for _, kv := range kvs {
		out = append(out, keyValue{Key: string(kv.Key), Value: encodeValue(kv.Value)})
	}
	return out
}

func encodeValue(v attribute.Value) anyValue {
	switch v.Type() {
	case attribute.BOOL:
		b := v.AsBool()
		return anyValue{BoolValue: &b}
	case attribute.INT64:
		i := strconv.FormatInt(v.AsInt64(), 10)
		return anyValue{IntValue: &i}
	case attribute.FLOAT64:
		f := v.AsFloat64()
		return anyValue{DoubleValue: &f}
	case attribute.STRINGSLICE:
		var vals []anyValue
		for _, s := range v.AsStringSlice() {
			vals = append(vals, anyValue{StringValue: &s})
		}
		return anyValue{ArrayValue: &arrayValue{Values: vals}}
	case attribute.INT64SLICE:
		var vals []anyValue
		for _, n := range v.AsInt64Slice() {
			i := strconv.FormatInt(n, 10)
			vals = append(vals, anyValue{IntValue: &i})
		}
		return anyValue{ArrayValue: &arrayValue{Values: vals}}
	case attribute.BOOLSLICE:
		var vals []anyValue
		for _, b := range v.AsBoolSlice() {
			vals = append(vals, anyValue{BoolValue: &b})
		}
		return anyValue{ArrayValue: &arrayValue{Values: vals}}
	case attribute.FLOAT64SLICE:
		var vals []anyValue
		for _, f := range v.AsFloat64Slice() {
			vals = append(vals, anyValue{DoubleValue: &f})
		}
		return anyValue{ArrayValue: &arrayValue{Values: vals}}
	}
	s := v.Emit()
	return anyValue{StringValue: &s}
}
