package demo

import "testing"

// BenchmarkGetSheetOrders measures a full getSheet("abc123") round trip
// (10,000 rows) through a client over in-memory transports.
func BenchmarkGetSheetOrders(b *testing.B) {
	cs := connect(b, "google-drive")
	args := map[string]any{"sheetId": "abc123"}
	call(b, cs, "getSheet", args) // build the shared dataset outside the loop
	b.ResetTimer()
	for b.Loop() {
		if res := call(b, cs, "getSheet", args); res.IsError {
			b.Fatal(resultText(b, res))
		}
	}
}

// BenchmarkGetTranscript measures a getDocument("abc123") round trip.
func BenchmarkGetTranscript(b *testing.B) {
	cs := connect(b, "google-drive")
	args := map[string]any{"documentId": "abc123"}
	call(b, cs, "getDocument", args)
	b.ResetTimer()
	for b.Loop() {
		if res := call(b, cs, "getDocument", args); res.IsError {
			b.Fatal(resultText(b, res))
		}
	}
}

// BenchmarkBuildDataset measures generating all synthetic data, which
// happens once per process.
func BenchmarkBuildDataset(b *testing.B) {
	for b.Loop() {
		buildDataset()
	}
}
