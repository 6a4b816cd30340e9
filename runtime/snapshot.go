package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// The host serialises what leaves a realm as an argument (a tool call's
// arguments, a skill's input) itself, from a snapshot of the value's own
// data: no toJSON method, getter, Proxy trap, valueOf or prototype the
// program defined is looked up or run, so no code can change the JSON
// between the program's check of a value and the call. The JSON is what
// JSON.stringify gives for plain data: own enumerable string-keyed
// properties in order, undefined, functions and symbols left out of
// objects (null in arrays), NaN and infinities as null, Dates as their ISO
// time, boxed strings, numbers and booleans as their value. What plain data
// cannot hold is refused with its path: a getter, a Proxy, a BigInt, a
// cycle, nesting deeper than maxSnapshotDepth.

// maxSnapshotDepth bounds the nesting of a serialised argument.
const maxSnapshotDepth = 1000

var boolType = reflect.TypeOf(true)

// snapshotArgs serialises a tool call's arguments (what is "the arguments"
// in messages) or a skill's input ("the input"): an object, or undefined
// or null, which mean {}. The message says what is wrong, with the path.
func (r *run) snapshotArgs(v goja.Value, what string) (json.RawMessage, string) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return json.RawMessage("{}"), ""
	}
	notObject := "/: " + what + " must be an object"
	obj, ok := v.(*goja.Object)
	if !ok {
		return nil, notObject
	}
	if isProxy(obj) {
		return nil, "/: " + what + " are a Proxy, whose traps mcpcode does not run: pass a plain object"
	}
	if _, fn := goja.AssertFunction(obj); fn {
		return nil, notObject
	}
	switch c := obj.ClassName(); c {
	case "Array":
		return nil, notObject
	case "Date", "String", "Number", "Boolean", "BigInt":
		return nil, notObject + " (got a " + c + ")"
	}
	s := &snapshot{r: r, onPath: map[*goja.Object]bool{}}
	if msg := s.value(obj, "", 0); msg != "" {
		return nil, msg
	}
	return json.RawMessage(s.buf.Bytes()), ""
}

// snapshot is one serialisation in progress.
type snapshot struct {
	r      *run
	buf    bytes.Buffer
	onPath map[*goja.Object]bool
	nodes  int
}

// omitted reports values JSON leaves out of objects (null in arrays).
func omitted(v goja.Value) bool {
	if v == nil || goja.IsUndefined(v) {
		return true
	}
	switch v := v.(type) {
	case *goja.Symbol:
		return true
	case *goja.Object:
		_, fn := goja.AssertFunction(v)
		return fn && !isProxy(v)
	}
	return false
}

// value writes one value's JSON, or returns what is wrong with it.
func (s *snapshot) value(v goja.Value, path string, depth int) string {
	if s.nodes++; s.nodes%1024 == 0 && s.r.stopErr.Load() != nil {
		return "the run is stopping"
	}
	at := path
	if at == "" {
		at = "/"
	}
	switch {
	case v == nil || goja.IsUndefined(v) || goja.IsNull(v) || omitted(v):
		s.buf.WriteString("null")
		return ""
	case goja.IsString(v):
		writeJSONString(&s.buf, v.String())
		return ""
	case goja.IsBigInt(v):
		return at + ": a BigInt has no JSON form: convert it with String() or Number()"
	case goja.IsNumber(v):
		s.number(v)
		return ""
	case v.ExportType() == boolType:
		s.buf.WriteString(strconv.FormatBool(v.ToBoolean()))
		return ""
	}
	obj, ok := v.(*goja.Object)
	if !ok {
		return at + ": a value with no JSON form"
	}
	if isProxy(obj) {
		return at + ": a Proxy, whose traps mcpcode does not run: pass plain data"
	}
	if depth >= maxSnapshotDepth {
		return fmt.Sprintf("%s: the value nests more than %d levels deep: pass flatter data", at, maxSnapshotDepth)
	}
	if s.onPath[obj] {
		return at + ": the value contains itself (a cycle), which JSON cannot hold"
	}
	s.onPath[obj] = true
	defer delete(s.onPath, obj)
	switch obj.ClassName() {
	case "Array":
		return s.array(obj, path, depth)
	case "Date":
		if t, ok := obj.Export().(time.Time); ok {
			s.buf.WriteString(`"` + t.UTC().Format("2006-01-02T15:04:05.000Z") + `"`)
		} else {
			s.buf.WriteString("null")
		}
		return ""
	case "String", "Number", "Boolean":
		// The boxed value itself, not what a valueOf or toString says.
		v, err := s.r.intr.unbox(goja.Undefined(), obj, s.r.vm.ToValue(obj.ClassName()))
		if err != nil {
			if isUncatchable(err) {
				panic(err)
			}
			return at + ": the value cannot be read: " + exceptionText(err)
		}
		return s.value(v, path, depth)
	case "BigInt":
		return at + ": a BigInt has no JSON form: convert it with String() or Number()"
	}
	return s.object(obj, path, depth)
}

// number writes a number as JSON.stringify does (JavaScript's own
// formatting; NaN and the infinities as null).
func (s *snapshot) number(v goja.Value) {
	if f := v.ToFloat(); math.IsNaN(f) || math.IsInf(f, 0) {
		s.buf.WriteString("null")
		return
	}
	s.buf.WriteString(v.String())
}

func (s *snapshot) array(obj *goja.Object, path string, depth int) string {
	s.buf.WriteByte('[')
	i, msg := 0, ""
	sink := s.r.vm.ToValue(func(c goja.FunctionCall) goja.Value {
		if msg != "" {
			return goja.Undefined()
		}
		if i > 0 {
			s.buf.WriteByte(',')
		}
		key := strconv.Itoa(i)
		i++
		msg = s.value(c.Argument(0), path+"/"+key, depth+1)
		return goja.Undefined()
	})
	stopped, err := s.r.intr.items(goja.Undefined(), obj, sink)
	switch {
	case err != nil:
		if isUncatchable(err) {
			panic(err) // an interrupt unwinds the VM
		}
		return pathOrRoot(path) + ": the array cannot be read: " + exceptionText(err)
	case msg != "":
		return msg
	case !goja.IsUndefined(stopped):
		return path + "/" + stopped.String() + ": a getter or setter, which mcpcode does not run: pass plain data"
	}
	s.buf.WriteByte(']')
	return ""
}

func (s *snapshot) object(obj *goja.Object, path string, depth int) string {
	s.buf.WriteByte('{')
	first, msg := true, ""
	sink := s.r.vm.ToValue(func(c goja.FunctionCall) goja.Value {
		v := c.Argument(1)
		if msg != "" || omitted(v) {
			return goja.Undefined()
		}
		key := c.Argument(0).String()
		if !first {
			s.buf.WriteByte(',')
		}
		first = false
		writeJSONString(&s.buf, key)
		s.buf.WriteByte(':')
		msg = s.value(v, path+"/"+pointerToken(key), depth+1)
		return goja.Undefined()
	})
	stopped, err := s.r.intr.ownEntries(goja.Undefined(), obj, sink)
	switch {
	case err != nil:
		if isUncatchable(err) {
			panic(err) // an interrupt unwinds the VM
		}
		return pathOrRoot(path) + ": the object cannot be read: " + exceptionText(err)
	case msg != "":
		return msg
	case !goja.IsUndefined(stopped):
		return path + "/" + pointerToken(stopped.String()) + ": a getter or setter, which mcpcode does not run: pass plain data"
	}
	s.buf.WriteByte('}')
	return ""
}

// pathOrRoot is a JSON Pointer path, "/" for the root.
func pathOrRoot(path string) string {
	if path == "" {
		return "/"
	}
	return path
}

// pointerToken escapes a key for a JSON Pointer path.
func pointerToken(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

// writeJSONString writes s as a JSON string the way JSON.stringify does:
// quotes, backslashes and control characters escaped, everything else as
// it is.
func writeJSONString(b *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b.WriteString(`\ufffd`)
			} else {
				b.WriteString(s[i : i+size])
			}
			i += size
			continue
		}
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&0xf])
			} else {
				b.WriteByte(c)
			}
		}
		i++
	}
	b.WriteByte('"')
}
