//go:build linux

package worker

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/mcpcode/mcpcode/runtime"
)

// TestHugeHeapAdvised: once a large result is announced, heap allocated
// afterwards lies in a mapping advised to use huge pages (VmFlags "hg"),
// when the memory limit leaves room; not before one is announced.
func TestHugeHeapAdvised(t *testing.T) {
	if raceEnabled {
		t.Skip("not done under the race detector")
	}
	beforeLargeResult(largeResultBytes) // not allowed yet: nothing happens
	if b := make([]byte, 8<<20); strings.Contains(vmFlags(t, uintptr(unsafe.Pointer(&b[0]))), " hg ") {
		t.Skip("the heap is advised already (THP set up by someone else)")
	}
	allowHugeHeap(runtime.Limits{}.WithDefaults().Memory)
	beforeLargeResult(largeResultBytes - 1) // too small: nothing happens
	beforeLargeResult(largeResultBytes)
	b := make([]byte, 8<<20)
	if flags := vmFlags(t, uintptr(unsafe.Pointer(&b[0]))); !strings.Contains(flags, " hg ") {
		t.Errorf("the heap's mapping has VmFlags%s, want hg (MADV_HUGEPAGE)", flags)
	}
}

// vmFlags returns the VmFlags line of the mapping holding addr
// (/proc/self/smaps), with a space on either side of each flag.
func vmFlags(t *testing.T, addr uintptr) string {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	in := false
	for s.Scan() {
		line := s.Text()
		if rest, ok := strings.CutPrefix(line, "VmFlags:"); ok {
			if in {
				return rest + " "
			}
			continue
		}
		// A mapping's first line: 7f0000000000-7f0000400000 rw-p ...
		fields := strings.Fields(line)
		if len(fields) < 2 || len(fields[1]) != 4 {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if ok && err1 == nil && err2 == nil {
			in = uint64(addr) >= start && uint64(addr) < end
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return ""
}

// TestLargeResultInWorker: a result of several megabytes (the size that
// has the worker advise huge pages for its values) reaches the program
// whole.
func TestLargeResultInWorker(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t, nil)
	pool := NewPool(Options{Command: testWorkerCommand()})
	defer pool.Close()
	res := pool.Run(context.Background(), source(ws, `import { getSheet } from "servers/google-drive/getSheet";
const sheet = await getSheet({ sheetId: "orders" });
export default [sheet.rows.length, sheet.rows[9999].orderId, sheet.rows.filter((r) => r.Status === "pending").length];`),
		runtime.RunOptions{Workspace: ws, Caller: sheetCaller{sheetResult(10000)}})
	mustOK(t, res)
	if string(res.Result) != `[10000,"ORD-109999",2500]` {
		t.Errorf("result %s", res.Result)
	}
}
