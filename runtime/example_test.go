package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcpcode/mcpcode/runtime"
)

// A program is bundled, then run; what it logs and its default export come
// back in the Result.
func Example() {
	ws, err := os.MkdirTemp("", "mcpcode-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(ws)
	prog, err := runtime.Bundle(runtime.BundleOptions{
		Workspace: ws,
		Entry:     filepath.Join(ws, "prog.ts"),
		Source: []byte(`const rows = [{ n: 1 }, { n: 2 }, { n: 3 }];
console.log(rows.length, "rows");
export default rows.filter((r) => r.n > 1).map((r) => r.n * 10);`),
	})
	if err != nil {
		panic(err)
	}
	res := runtime.Run(context.Background(), prog, runtime.RunOptions{Workspace: ws})
	fmt.Println(res.OK, res.Logs[0].Text, string(res.Result))
	// Output: true 3 rows [20,30]
}

// A program that cannot be bundled gets diagnostics with positions in its
// own source; BundleErrorResult turns the error into a Result like a run's.
func ExampleBundle_error() {
	ws, err := os.MkdirTemp("", "mcpcode-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(ws)
	_, err = runtime.Bundle(runtime.BundleOptions{Workspace: ws, Entry: "prog.ts",
		Source: []byte("const total = 1;\nexport default total +;\n")})
	var be *runtime.BundleError
	if errors.As(err, &be) {
		d := be.Diagnostics[0]
		fmt.Printf("%s:%d:%d: %s\n", d.File, d.Line, d.Column, d.Text)
	}
	res := runtime.BundleErrorResult(err)
	fmt.Println(res.OK, res.Error.Kind)
	// Output:
	// prog.ts:2:23: Unexpected ";"
	// false bundle
}

// The limits a run enforces: the caller's, with defaults for the rest; a
// limit that is hit says its value and the flag that raises it.
func ExampleLimits_Exceeded() {
	lim := runtime.Limits{Timeout: 5e9}.WithDefaults()
	fmt.Println(lim.MaxToolCalls)
	fmt.Println(lim.Exceeded(runtime.LimitTimeout).Message)
	// Output:
	// 500
	// wall-time limit of 5s exceeded (--timeout)
}
