package runtime

import (
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// installConsole defines console.log/info/warn/error/debug, captured into
// the run's logs and never written anywhere else.
func (r *run) installConsole() error {
	console := r.vm.NewObject()
	for _, level := range []string{"log", "info", "warn", "error", "debug"} {
		level := level
		fn := func(call goja.FunctionCall) goja.Value {
			// Format a little beyond the remaining room so the cut is
			// visible, and not much more: a huge value is not rendered whole.
			f := &formatter{vm: r.vm, in: r.intr, limit: max(r.logs.room(), 0) + 1024}
			f.args(call.Arguments)
			r.logs.add(level, f.b.String(), f.dropped)
			return goja.Undefined()
		}
		if err := console.Set(level, fn); err != nil {
			return err
		}
	}
	return r.vm.GlobalObject().Set("console", console)
}

// formatter renders console arguments: strings as they are, other values
// like a compact JSON.stringify that also shows undefined, functions,
// BigInt and cycles ([Circular]), and errors as their stack.
type formatter struct {
	vm      *goja.Runtime
	in      *intrinsics
	b       strings.Builder
	limit   int // stop rendering beyond this many bytes
	dropped int // characters known to be left out
	seen    []*goja.Object
}

// maxFormatDepth is how deep nested objects are rendered.
const maxFormatDepth = 12

func (f *formatter) args(args []goja.Value) {
	for i, a := range args {
		if i > 0 {
			f.b.WriteByte(' ')
		}
		if goja.IsString(a) {
			f.write(a.String())
			continue
		}
		f.value(a, 0, true)
	}
}

// write appends s, cutting it at the limit and counting the rest.
func (f *formatter) write(s string) {
	room := f.limit - f.b.Len()
	if room <= 0 {
		f.dropped += utf8.RuneCountInString(s)
		return
	}
	if len(s) > room {
		cut := s[:room]
		for !utf8.ValidString(cut) && len(cut) > 0 {
			cut = cut[:len(cut)-1]
		}
		f.b.WriteString(cut)
		f.dropped += utf8.RuneCountInString(s[len(cut):])
		return
	}
	f.b.WriteString(s)
}

func (f *formatter) full() bool { return f.b.Len() >= f.limit }

func (f *formatter) value(v goja.Value, depth int, top bool) {
	if f.full() {
		return
	}
	switch {
	case v == nil || goja.IsUndefined(v):
		f.write("undefined")
		return
	case goja.IsNull(v):
		f.write("null")
		return
	case goja.IsString(v):
		f.write(quoteJSON(v.String()))
		return
	case goja.IsBigInt(v):
		if n, ok := v.Export().(*big.Int); ok {
			f.write(n.String() + "n")
		} else {
			f.write(v.String() + "n")
		}
		return
	}
	if sym, ok := v.(*goja.Symbol); ok {
		f.write("Symbol(" + sym.String() + ")")
		return
	}
	obj, ok := v.(*goja.Object)
	if !ok {
		f.write(v.String()) // numbers and booleans
		return
	}
	for _, s := range f.seen {
		if s == obj {
			f.write(`"[Circular]"`)
			return
		}
	}
	if _, callable := goja.AssertFunction(obj); callable {
		name := obj.Get("name")
		if name == nil || name.String() == "" {
			f.write("[Function (anonymous)]")
		} else {
			f.write("[Function: " + name.String() + "]")
		}
		return
	}
	if f.vm.InstanceOf(obj, f.in.errorCtor) {
		f.error(obj, top)
		return
	}
	switch obj.ClassName() {
	case "Date":
		if fn, ok := goja.AssertFunction(obj.Get("toISOString")); ok {
			if s, err := fn(obj); err == nil {
				f.write(quoteJSON(s.String()))
				return
			}
		}
		f.write(`"Invalid Date"`)
		return
	case "RegExp":
		f.write(obj.String())
		return
	case "Promise":
		f.write("Promise {}")
		return
	}
	if depth >= maxFormatDepth {
		f.write("[Object]")
		return
	}
	f.seen = append(f.seen, obj)
	defer func() { f.seen = f.seen[:len(f.seen)-1] }()
	switch {
	case obj.ClassName() == "Array":
		f.array(obj, depth)
	case f.vm.InstanceOf(obj, f.in.mapCtor):
		f.collection(obj, "Map", depth)
	case f.vm.InstanceOf(obj, f.in.setCtor):
		f.collection(obj, "Set", depth)
	default:
		f.object(obj, depth)
	}
}

func (f *formatter) error(obj *goja.Object, top bool) {
	if top {
		if st := obj.Get("stack"); st != nil && goja.IsString(st) {
			f.write(cleanStack(st.String()))
			return
		}
	}
	name, msg := "Error", ""
	if v := obj.Get("name"); v != nil && !goja.IsUndefined(v) {
		name = v.String()
	}
	if v := obj.Get("message"); v != nil && !goja.IsUndefined(v) {
		msg = v.String()
	}
	if top {
		f.write(name + ": " + msg)
		return
	}
	f.write("[" + name + ": " + msg + "]")
}

func (f *formatter) array(obj *goja.Object, depth int) {
	n := obj.Get("length").ToInteger()
	f.write("[")
	for i := int64(0); i < n; i++ {
		if f.full() {
			return
		}
		if i > 0 {
			f.write(",")
		}
		f.value(obj.Get(strconv.FormatInt(i, 10)), depth+1, false)
	}
	f.write("]")
}

func (f *formatter) collection(obj *goja.Object, class string, depth int) {
	v, err := f.in.entries(goja.Undefined(), obj)
	if err != nil {
		if isUncatchable(err) {
			panic(err)
		}
		f.write(class + " {}")
		return
	}
	items := v.ToObject(f.vm)
	n := items.Get("length").ToInteger()
	f.write(class + "(" + strconv.FormatInt(n, 10) + ") {")
	for i := int64(0); i < n; i++ {
		if f.full() {
			return
		}
		if i > 0 {
			f.write(",")
		}
		item := items.Get(strconv.FormatInt(i, 10))
		if class == "Map" {
			pair := item.ToObject(f.vm)
			f.value(pair.Get("0"), depth+1, false)
			f.write(" => ")
			f.value(pair.Get("1"), depth+1, false)
		} else {
			f.value(item, depth+1, false)
		}
	}
	f.write("}")
}

func (f *formatter) object(obj *goja.Object, depth int) {
	f.write("{")
	for i, k := range obj.Keys() {
		if f.full() {
			return
		}
		if i > 0 {
			f.write(",")
		}
		f.write(quoteJSON(k) + ":")
		f.value(obj.Get(k), depth+1, false)
	}
	f.write("}")
}

// quoteJSON quotes s as a JSON string, without HTML escaping.
func quoteJSON(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&0xf])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
