package runtime

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/dop251/goja"
)

// sameAsJSONParse checks that jsonToValue and goja's JSON.parse agree on
// text: both fail, or both give values with the same JSON (key order
// included), the same -0s and the same types.
func sameAsJSONParse(t *testing.T, vm *goja.Runtime, text string) {
	t.Helper()
	parse, _ := goja.AssertFunction(vm.Get("JSON").(*goja.Object).Get("parse"))
	describe, _ := goja.AssertFunction(vm.Get("describeValue"))
	want, werr := parse(goja.Undefined(), vm.ToValue(text))
	got, gerr := jsonToValue(vm, []byte(text))
	if werr != nil && strings.Contains(werr.Error(), "cannot unmarshal number") && gerr == nil {
		// goja's JSON.parse refuses numbers beyond float64; JS (and
		// jsonToValue) make them ±Infinity or 0.
		if f := got.ToFloat(); !math.IsInf(f, 0) && f != 0 {
			t.Fatalf("%q: jsonToValue gives %v, want ±Infinity or 0", text, got)
		}
		return
	}
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("%q: JSON.parse error %v, jsonToValue error %v", text, werr, gerr)
	}
	if werr != nil {
		return
	}
	w, err := describe(goja.Undefined(), want)
	if err != nil {
		t.Fatal(err)
	}
	g, err := describe(goja.Undefined(), got)
	if err != nil {
		t.Fatal(err)
	}
	if w.String() != g.String() {
		t.Fatalf("%q:\n JSON.parse gives %s\njsonToValue gives %s", text, w, g)
	}
}

// describeSource describes a value exactly: types, -0, key order, own
// properties and prototypes.
const describeSource = `function describeValue(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "[" + v.map(describeValue).join(",") + "]" + (Object.getPrototypeOf(v) === Array.prototype ? "" : "!proto");
  if (typeof v === "object") {
    const proto = Object.getPrototypeOf(v) === Object.prototype ? "" : "!proto";
    return "{" + Object.getOwnPropertyNames(v).map((k) => {
      const d = Object.getOwnPropertyDescriptor(v, k);
      const flags = (d.writable ? "w" : "") + (d.enumerable ? "e" : "") + (d.configurable ? "c" : "");
      return JSON.stringify(k) + flags + ":" + describeValue(d.value);
    }).join(",") + "}" + proto;
  }
  if (typeof v === "number" && Object.is(v, -0)) return "-0";
  return typeof v + ":" + String(v);
}`

func newJSONTestVM(t testing.TB) *goja.Runtime {
	vm := goja.New()
	if _, err := vm.RunString(describeSource); err != nil {
		t.Fatal(err)
	}
	return vm
}

func TestJSONToValueMatchesJSONParse(t *testing.T) {
	t.Parallel()
	vm := newJSONTestVM(t)
	for _, text := range []string{
		`null`, `true`, `false`, `0`, `-0`, `-0.0`, `1`, `-1`, `1.5`, `1e3`, `1E-3`, `-1.25e+2`,
		`123456789012345`, `1234567890123456`, `9007199254740993`, `12345678901234567890`, `1e400`, `-1e400`, `5e-400`,
		`""`, `"abc"`, `"é"`, `"\u00e9\n\t\"\\\/\b\f\r"`, `"\ud83d\ude00"`, `"\ud800"`, `"\ud800\u0041"`, `"\udc00\ud800"`,
		"\"\xff\xfe\"", "\"a\xc3\"", `"\u0000"`,
		`[]`, `[1,[2,[3]]]`, ` [ 1 , 2 ] `, `{}`, `{"a":1,"b":[true,null,"x"],"c":{"d":{}}}`,
		`{"b":1,"a":2,"1":3,"0":4}`, `{"a":1,"a":2,"b":3}`, `{"__proto__":{"polluted":1},"x":1}`,
		`{"constructor":1,"toString":2,"hasOwnProperty":3}`,
		`{"rows":[{"orderId":"1","Status":"pending","amount":12.5},{"orderId":"2","Status":"paid","amount":-3}]}`,
		`["pending","pending",{"pending":"pending","p":"pendin"},"pending\u0021","pend\u0069ng","",""]`,
		`["` + strings.Repeat("x", 32) + `","` + strings.Repeat("x", 32) + `","` + strings.Repeat("x", 33) + `","` + strings.Repeat("x", 33) + `"]`,
		// Invalid: both fail.
		``, ` `, `[`, `[1,]`, `{"a":1,}`, `{"a"}`, `{a:1}`, `01`, `1.`, `.5`, `+1`, `-`, `1e`, `NaN`, `Infinity`,
		`"abc`, "\"a\nb\"", `"\x"`, `"\u12"`, `"\u12G4"`, `tru`, `nul`, `[1 2]`, `{"a":1 "b":2}`, `1 2`, `[]]`, `{}x`,
		"{\"\\u0001\":1,\"\x01\":2}", // a raw control character in a key seen escaped before
	} {
		sameAsJSONParse(t, vm, text)
	}
}

// TestJSONToValueProtoIsData: a "__proto__" key is an own data property
// and leaves the prototype alone, no setter a program put on
// Object.prototype runs, and a read-only property it put there does not
// stop an own one of that name (values are defined, not assigned).
func TestJSONToValueProtoIsData(t *testing.T) {
	t.Parallel()
	vm := newJSONTestVM(t)
	if _, err := vm.RunString(`var setterRan = false; Object.defineProperty(Object.prototype, "trap", { set() { setterRan = true; }, configurable: true });
Object.defineProperty(Object.prototype, "ro", { value: 0, writable: false, configurable: true });`); err != nil {
		t.Fatal(err)
	}
	v, err := jsonToValue(vm, []byte(`{"__proto__":{"polluted":true},"trap":1,"ro":2}`))
	if err != nil {
		t.Fatal(err)
	}
	vm.Set("v", v)
	check, err := vm.RunString(`[Object.getPrototypeOf(v) === Object.prototype, Object.prototype.hasOwnProperty.call(v, "__proto__"),
		v.polluted === undefined, ({}).polluted === undefined, Object.getOwnPropertyDescriptor(v, "trap").value === 1, setterRan === false,
		Object.getOwnPropertyDescriptor(v, "ro").value === 2, Object.getOwnPropertyDescriptor(v, "ro").writable].join()`)
	if err != nil {
		t.Fatal(err)
	}
	if got := check.String(); got != "true,true,true,true,true,true,true,true" {
		t.Errorf("checks = %s, want all true", got)
	}
}

func TestJSONToValueDepthBound(t *testing.T) {
	t.Parallel()
	vm := newJSONTestVM(t)
	ok := strings.Repeat("[", maxJSONDepth) + strings.Repeat("]", maxJSONDepth)
	if _, err := jsonToValue(vm, []byte(ok)); err != nil {
		t.Errorf("%d levels: %v", maxJSONDepth, err)
	}
	for _, deep := range []string{
		strings.Repeat("[", maxJSONDepth+1) + strings.Repeat("]", maxJSONDepth+1),
		strings.Repeat(`{"a":`, maxJSONDepth+1) + "1" + strings.Repeat("}", maxJSONDepth+1),
		strings.Repeat("[", 5_000_000), // unterminated, far deeper: stops at the bound
	} {
		if _, err := jsonToValue(vm, []byte(deep)); err == nil || !strings.Contains(err.Error(), "levels deep") {
			t.Errorf("%d bytes of nesting: error %v, want the depth bound", len(deep), err)
		}
	}
}

func FuzzJSONToValue(f *testing.F) {
	for _, seed := range []string{`{"a":[1,2.5,-0,"x\u00e9"],"b":null}`, `[{"__proto__":1}]`, `"\ud800"`, `1e309`, `{"a":1,"a":2}`, `[1,]`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		sameAsJSONParse(t, newJSONTestVM(t), text)
	})
}

// BenchmarkJSONToValue compares building a 10,000-row tool result (the
// demo's getSheet) straight from its bytes with goja's JSON.parse of the
// same text.
func BenchmarkJSONToValue(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"rows":[`)
	for i := range 10000 {
		if i > 0 {
			sb.WriteByte(',')
		}
		status := [3]string{"pending", "paid", "shipped"}[i%3]
		fmt.Fprintf(&sb, `{"orderId":"ORD-%05d","name":"Customer %d","email":"customer%d@example.com","Status":%q,"amount":%d.%02d,"region":"EMEA","notes":"Ordered via the web shop; ships in 3-5 days"}`, i, i, i, status, 10+i%900, i%100)
	}
	sb.WriteString(`]}`)
	text := sb.String()
	b.Run("jsonToValue", func(b *testing.B) {
		vm := goja.New()
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := jsonToValue(vm, []byte(text)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("JSON.parse", func(b *testing.B) {
		vm := goja.New()
		parse, _ := goja.AssertFunction(vm.Get("JSON").(*goja.Object).Get("parse"))
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := parse(goja.Undefined(), vm.ToValue(text)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
