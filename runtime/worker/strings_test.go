package worker

import (
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/runtime"
)

// TestWorkerStringBuildingMemory: a program that builds a string piece by
// piece (goja patched for linear concatenation, third_party/goja/PATCHES.md)
// holds about the string and stays within a memory limit it fits in, in
// every shape agents write; a program that builds past the limit is stopped
// by it: the buffers the string grows in are counted.
func TestWorkerStringBuildingMemory(t *testing.T) {
	t.Parallel()
	pool := newPool(t, Options{Command: testWorkerCommand()})
	// 4 MB in 10-character pieces: quadratic concatenation copies 800 GB
	// and cannot finish within the generous timeout.
	fits := runtime.Limits{Memory: 32 << 20, Timeout: 2 * time.Minute}
	over := runtime.Limits{Memory: 32 << 20, Timeout: 2 * time.Minute}
	const piece = `const piece = (i: number) => "row " + String(i % 100000).padStart(5, "0") + ";";`
	tests := []hostileCase{
		{name: "append", src: piece + `let s = ""; for (let i = 0; i < 400000; i++) s += piece(i); export default s.length + ":" + s.slice(-10);`,
			limits: fits, msg: `"4000000:row 99999;"`},
		{name: "prepend", src: piece + `let s = ""; for (let i = 0; i < 400000; i++) s = piece(i) + s; export default s.length + ":" + s.slice(0, 10);`,
			limits: fits, msg: `"4000000:row 99999;"`},
		{name: "template", src: piece + "let s = \"\"; for (let i = 0; i < 400000; i++) s = `${s}${piece(i)}`; export default s.length;",
			limits: fits, msg: `4000000`},
		{name: "unicode", src: piece + `let s = "é"; for (let i = 0; i < 400000; i++) s += piece(i); export default s.length + ":" + s.slice(0, 3);`,
			limits: fits, msg: `"4000001:éro"`},
		{name: "append past the limit", src: `const p = "x".repeat(1000); let s = ""; while (true) s += p;`,
			limits: over, kind: runtime.KindLimit, limit: runtime.LimitMemory, msg: "memory limit of 32 MiB exceeded (--memory)"},
		{name: "prepend past the limit", src: `const p = "ü".repeat(1000); let s = ""; while (true) s = p + s;`,
			limits: over, kind: runtime.KindLimit, limit: runtime.LimitMemory, msg: "memory limit of 32 MiB exceeded (--memory)"},
		{name: "many strings past the limit", src: `const p = "x".repeat(200); const all: string[] = []; let s = p; while (true) { s += p; all.push(s + "!"); }`,
			limits: over, kind: runtime.KindLimit, limit: runtime.LimitMemory, msg: "memory limit of 32 MiB exceeded (--memory)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, nil)
			res := pool.Run(t.Context(), source(ws, tt.src), runtime.RunOptions{Workspace: ws, Caller: newFakeCaller(), Limits: tt.limits})
			checkHostile(t, tt, res)
		})
	}
}
