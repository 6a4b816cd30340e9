package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dop251/goja"
)

// BenchmarkGojaKernels times small JavaScript kernels in goja, the engine
// programs run on: the same files testdata/bench/node/kernels.mjs times in
// Node, for the table in docs/BENCHMARKS.md. Each file defines setup()
// (not timed) and run(data).
func BenchmarkGojaKernels(b *testing.B) {
	files, err := filepath.Glob("../testdata/bench/kernels/*.js")
	if err != nil || len(files) == 0 {
		b.Fatalf("no kernels: %v", err)
	}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(strings.TrimSuffix(filepath.Base(file), ".js"), func(b *testing.B) {
			vm := goja.New()
			if _, err := vm.RunScript(file, string(src)); err != nil {
				b.Fatal(err)
			}
			setup, _ := goja.AssertFunction(vm.Get("setup"))
			run, _ := goja.AssertFunction(vm.Get("run"))
			data, err := setup(goja.Undefined())
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := run(goja.Undefined(), data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
