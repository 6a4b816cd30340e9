package privacy

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

type labelledSpan struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

type labelledLine struct {
	Text  string         `json:"text"`
	Spans []labelledSpan `json:"spans"`
	Note  string         `json:"note"`
}

type labelledSample struct {
	names, firstNames []string
	lines             []labelledLine
}

// loadLabelled reads testdata/labelled.jsonl (made by gen_labelled.go).
func loadLabelled(t testing.TB) labelledSample {
	t.Helper()
	f, err := os.Open("testdata/labelled.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var s labelledSample
	sc := bufio.NewScanner(f)
	first := true
	for sc.Scan() {
		if first {
			var h struct{ Names, FirstNames []string }
			if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
				t.Fatal(err)
			}
			s.names, s.firstNames = h.Names, h.FirstNames
			first = false
			continue
		}
		var l labelledLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		s.lines = append(s.lines, l)
	}
	return s
}

// sampleIndex knows the sample's names as a session learns them.
func (s labelledSample) index() *NameIndex {
	x := NewNameIndex()
	for _, n := range s.names {
		x.Add(n, 2)
	}
	for _, n := range s.firstNames {
		x.Add(n, 1)
	}
	return x
}

type score struct{ tp, fp, fn int }

func (s score) precision() float64 {
	if s.tp+s.fp == 0 {
		return 1
	}
	return float64(s.tp) / float64(s.tp+s.fp)
}

func (s score) recall() float64 {
	if s.tp+s.fn == 0 {
		return 1
	}
	return float64(s.tp) / float64(s.tp+s.fn)
}

// scoreSample runs the detector over the sample: a found value counts when
// its kind and text are a labelled span's.
func scoreSample(d *Detector, s labelledSample) (map[string]*score, []string) {
	x := s.index()
	scores := map[string]*score{}
	get := func(k string) *score {
		if scores[k] == nil {
			scores[k] = &score{}
		}
		return scores[k]
	}
	var misses []string
	for _, l := range s.lines {
		want := slices.Clone(l.Spans)
		for _, m := range d.Find(l.Text, x) {
			got := labelledSpan{m.Kind, l.Text[m.Start:m.End]}
			if i := slices.Index(want, got); i >= 0 {
				get(m.Kind).tp++
				want = slices.Delete(want, i, i+1)
				continue
			}
			get(m.Kind).fp++
			misses = append(misses, fmt.Sprintf("false %s %q in %q (%s)", m.Kind, got.Value, l.Text, l.Note))
		}
		for _, w := range want {
			get(w.Kind).fn++
			misses = append(misses, fmt.Sprintf("missed %s %q in %q", w.Kind, w.Value, l.Text))
		}
	}
	return scores, misses
}

// TestLabelledSample measures precision and recall on the labelled sample
// and holds them at what docs/BENCHMARKS.md reports. `go test ./privacy
// -run TestLabelledSample -v` prints the table and every miss.
func TestLabelledSample(t *testing.T) {
	s := loadLabelled(t)
	d, err := NewDetector(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	values, lookalikes := 0, 0
	for _, l := range s.lines {
		values += len(l.Spans)
		if len(l.Spans) == 0 {
			lookalikes++
		}
	}
	if values+lookalikes < 500 {
		t.Fatalf("the sample has %d values and %d look-alikes; it needs at least 500 in all", values, lookalikes)
	}
	scores, misses := scoreSample(d, s)
	var table strings.Builder
	fmt.Fprintf(&table, "| kind | labelled | found | precision | recall |\n|---|---:|---:|---:|---:|\n")
	total := score{}
	for _, k := range BuiltinKinds {
		sc := scores[k]
		if sc == nil {
			t.Errorf("no %s in the sample", k)
			continue
		}
		total.tp, total.fp, total.fn = total.tp+sc.tp, total.fp+sc.fp, total.fn+sc.fn
		fmt.Fprintf(&table, "| %s | %d | %d | %.3f | %.3f |\n", k, sc.tp+sc.fn, sc.tp+sc.fp, sc.precision(), sc.recall())
	}
	fmt.Fprintf(&table, "| all | %d | %d | %.3f | %.3f |\n", total.tp+total.fn, total.tp+total.fp, total.precision(), total.recall())
	t.Logf("%d labelled values, %d look-alike lines\n%s", values, lookalikes, table.String())
	for _, m := range misses {
		t.Log(m)
	}
	// The floors are what docs/BENCHMARKS.md reports, rounded down.
	floors := map[string][2]float64{ // precision, recall
		KindEmail: {1, 1}, KindCard: {1, 1}, KindIBAN: {1, 1},
		KindIP: {0.98, 1}, KindPhone: {0.99, 0.99}, KindName: {0.95, 0.98},
	}
	for k, f := range floors {
		if sc := scores[k]; sc != nil && (sc.precision() < f[0] || sc.recall() < f[1]) {
			t.Errorf("%s: precision %.3f (floor %.2f), recall %.3f (floor %.2f)", k, sc.precision(), f[0], sc.recall(), f[1])
		}
	}
}
