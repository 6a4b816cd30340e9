package goja

// Lookups of built-ins without a map access (a patch on upstream goja:
// PATCHES.md, patch 8).
//
// Reading a global (`String`, `Math`, `JSON`) or a method of a primitive
// string (`s.padStart`) looks the name up in the property map of the
// global object or of String.prototype at every evaluation. Those objects
// are templated objects whose built-in properties are *valueProperty
// entries, and an entry's value and attributes change in place (an
// assignment, Object.defineProperty on an existing property); the entry
// itself is replaced or removed only by a delete, a definition that
// returns a new entry, or an internal put. Each runtime keeps a small
// cache of (object, name) → entry for these two lookups, and every
// replacement or removal of an entry in any ordinary object's map moves
// the runtime's epoch on, which empties the cache. A hit reads the entry
// exactly as the lookup would (its value, or its getter called).

import (
	"unsafe"

	"github.com/dop251/goja/unistring"
)

const propCacheSize = 64

type propCacheEntry struct {
	obj   *Object
	name  unistring.String
	prop  *valueProperty
	epoch uint64
}

// propCache is a runtime's cache; epoch starts at 1 so that a zero entry
// never matches.
type propCache struct {
	entries [propCacheSize]propCacheEntry
	epoch   uint64
}

// invalidate empties the cache: an entry of some object's map was
// replaced or removed.
func (c *propCache) invalidate() { c.epoch++ }

// getStrCached is obj.self.getStr(name, receiver) for obj the global
// object or String.prototype.
func (r *Runtime) getStrCached(obj *Object, name unistring.String, receiver Value) Value {
	c := &r.propCache
	e := &c.entries[(uintptr(unsafe.Pointer(unsafe.StringData(string(name))))>>3^uintptr(len(name)))%propCacheSize]
	if e.obj == obj && e.epoch == c.epoch && c.epoch != 0 && e.name == name {
		return e.prop.get(receiverOr(receiver, obj))
	}
	if t, ok := obj.self.(*templatedObject); ok {
		if p, ok := t.getOwnPropStr(name).(*valueProperty); ok {
			if c.epoch == 0 {
				c.epoch = 1
			}
			*e = propCacheEntry{obj: obj, name: name, prop: p, epoch: c.epoch}
			return p.get(receiverOr(receiver, obj))
		}
	}
	return obj.self.getStr(name, receiver)
}

// receiverOr is what baseObject.getStrWithOwnProp passes a getter.
func receiverOr(receiver Value, obj *Object) Value {
	if receiver == nil {
		return obj
	}
	return receiver
}
