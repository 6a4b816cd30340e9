package goja

import "github.com/dop251/goja/unistring"

// mcpcode's patch 5: reading a named property of a primitive string
// (`s.slice`, `s.length`, `s.padStart(...)`) or one of its characters by
// an integer index (`s[i]`, in getElem) is done without going through the
// realm's String wrapper singleton. The wrapper path boxed the
// string into the singleton (an allocation for every string that is not
// already an interface value) and re-stored its "length" property (a map
// write and a boxed number) on every read: about a fifth of the time of a
// loop that formats strings with their methods.
//
// A String object's own properties are its indices (below its length) and
// "length"; everything else is looked up on its prototype, the realm's
// intrinsic String.prototype (non-writable and non-configurable as a
// property of String, and the singleton is never exposed to programs),
// with the string as the receiver, as before.

// primitiveStringProp returns property name of the primitive string s as
// its wrapper object would (nil when there is none), and false when the
// caller must read it through the wrapper: an index.
func (r *Runtime) primitiveStringProp(s String, name unistring.String) (Value, bool) {
	if name == "length" {
		return intToValue(int64(s.Length())), true
	}
	if strToGoIdx(name) >= 0 {
		return nil, false
	}
	return r.getStrCached(r.getStringPrototype(), name, s), true // patch 8
}

// thisString is ToString of a String.prototype method's this value (which
// checkObjectCoercible has checked) and of a template literal's
// substitution (_toString): a primitive string is returned as the
// interface value it already is. Upstream's v.toString() boxed an ASCII or
// UTF-16 string again, an allocation at every call of a string method and
// at every string in a template literal; a Symbol still throws, as
// ToString does.
func thisString(this Value) String {
	if s, ok := this.(String); ok {
		return s
	}
	return this.toString()
}
