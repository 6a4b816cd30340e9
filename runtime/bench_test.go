package runtime

import (
	"context"
	"testing"
)

const trivialProgram = `export default 1 + 1;`

func BenchmarkBundleSmall(b *testing.B) {
	ws := newWorkspace(b, nil)
	src := []byte(`import { getDocument } from "./servers/google-drive/getDocument";
const doc = await getDocument({ documentId: "abc" });
console.log(doc.title);
export default doc.content.length;`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Bundle(BundleOptions{Workspace: ws, Entry: "prog.ts", Source: src}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRunTrivialInProcess(b *testing.B) {
	ws := newWorkspace(b, nil)
	p := bundleSource(b, ws, trivialProgram)
	opts := RunOptions{Workspace: ws, Caller: newFakeCaller()}
	b.ReportAllocs()
	for b.Loop() {
		if res := Run(context.Background(), p, opts); !res.OK {
			b.Fatal(res.Error)
		}
	}
}

func BenchmarkRun10kRowsFilter(b *testing.B) {
	ws := newWorkspace(b, nil)
	p := bundleSource(b, ws, `import { getSheet } from "servers/google-drive/getSheet";
const sheet = await getSheet({ sheetId: "orders" });
const pending = sheet.rows.filter((r) => r.Status === "pending" && (r.Amount as number) > 100);
console.log(pending.length + " pending of " + sheet.rows.length);
export default pending.slice(0, 5);`)
	fc := newFakeCaller()
	fc.Rows = 10000
	opts := RunOptions{Workspace: ws, Caller: fc}
	b.ReportAllocs()
	for b.Loop() {
		res := Run(context.Background(), p, opts)
		if !res.OK || res.Logs[0].Text != "3330 pending of 10000" {
			b.Fatalf("%+v %v", res.Error, res.Logs)
		}
	}
}
