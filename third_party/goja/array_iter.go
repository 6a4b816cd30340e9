package goja

// Iterating an array without result objects (a patch on upstream goja:
// PATCHES.md, patch 3). for…of, spread, destructuring and Array.from read
// an iterator's next() once and then call it for every element; for an
// array iterator whose next is the built-in one, each call made an
// iterator result object ({value, done}) only to read its two properties
// back. The record of such an iterator steps it directly: the same values
// in the same order, the same errors, the same reads of the array's length
// and elements, and nothing a program can observe is skipped (the result
// objects were fresh ordinary objects no program code ever saw).

// builtinArrayIterator returns iter's array iterator when next is the
// built-in %ArrayIteratorPrototype%.next of this realm, else nil.
func (r *Runtime) builtinArrayIterator(iter, next *Object) *arrayIterObject {
	if next != r.global.arrayIterNext || next == nil {
		return nil
	}
	ai, _ := iter.self.(*arrayIterObject)
	return ai
}

// stepArray is step for an iterator record with a built-in array iterator.
func (ir *iteratorRecord) stepArray() (value Value, ex *Exception) {
	ai := ir.array
	ex = ai.val.runtime.vm.try(func() {
		v, done := ai.step()
		if done {
			ir.close()
			return
		}
		value = v
	})
	return
}
