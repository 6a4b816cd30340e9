package privacy

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/internal/mcptool"
)

var (
	benchFirst = []string{"Maya", "Jonas", "Priya", "Tomas", "Ingrid", "Kwame", "Lucia", "Hiroshi", "Amara", "Dmitri", "Sofia", "Chen", "Fatima", "Oliver", "Zanele", "Mateus", "Grace", "Victor"}
	benchLast  = []string{"Okafor", "Lindqvist", "Raman", "Garcia", "Halvorsen", "Mensah", "Fernandez", "Tanaka", "Eze", "Volkov", "Rossi", "Wei", "Haddad", "Brennan", "Dlamini", "Costa", "Park"}
)

// benchPeople returns n people and a name index that knows them.
func benchPeople(n int) ([][3]string, *NameIndex) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := NewNameIndex()
	people := make([][3]string, n)
	for i := range people {
		f, l := benchFirst[rng.IntN(len(benchFirst))], benchLast[rng.IntN(len(benchLast))]
		name := f + " " + l
		people[i] = [3]string{name, strings.ToLower(f+"."+l) + fmt.Sprint(i) + "@example.com", fmt.Sprintf("(%d) 555-%04d", 200+rng.IntN(700), rng.IntN(10000))}
		x.Add(name, 2)
	}
	return people, x
}

// benchOutput is about size bytes of what programs print: order lines,
// dates, amounts, statuses, and personal data in one line of ten.
func benchOutput(size int, people [][3]string) string {
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		p := people[rng.IntN(len(people))]
		switch i % 10 {
		case 0:
			fmt.Fprintf(&b, "%s <%s> %s ordered %d items\n", p[0], p[1], p[2], 1+rng.IntN(20))
		case 1:
			fmt.Fprintf(&b, "ORD-%06d  2025-%02d-%02d  $%d,%03d.%02d  shipped  v1.%d.%d\n", 100000+i, 1+rng.IntN(12), 1+rng.IntN(28), rng.IntN(99), rng.IntN(1000), rng.IntN(100), rng.IntN(9), rng.IntN(20))
		default:
			fmt.Fprintf(&b, "row %d: status=%s amount=%d.%02d region=West quarter=Q%d updated 10:%02d:%02d\n", i, []string{"pending", "delivered", "cancelled"}[rng.IntN(3)], rng.IntN(5000), rng.IntN(100), 1+rng.IntN(4), rng.IntN(60), rng.IntN(60))
		}
	}
	return b.String()
}

// BenchmarkRedact is the cost of tokenizing a run's output, per byte of
// output (ns/op for 1 MiB, and MB/s): detection with 300 known names and
// token lookup.
func BenchmarkRedact(b *testing.B) {
	people, x := benchPeople(300)
	text := benchOutput(1<<20, people)
	s := &Session{det: mustDetector(b), names: x, seen: map[string]*seenValue{}}
	d := newStoreData()
	r := &Redactor{s: s, d: d}
	r.Text(text) // tokens exist, as after the first run
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		r.Text(text)
	}
}

// BenchmarkFind is detection alone, without names and with 300 names.
func BenchmarkFind(b *testing.B) {
	people, x := benchPeople(300)
	text := benchOutput(1<<20, people)
	d := mustDetector(b)
	for _, c := range []struct {
		name  string
		names *NameIndex
	}{{"patterns", nil}, {"patterns+names", x}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				d.Find(text, c.names)
			}
		})
	}
}

// BenchmarkLearnSheet is the cost of learning from a tool result: the
// article's sheet, 10,000 rows as structured content and the same JSON as
// text, per byte of result.
func BenchmarkLearnSheet(b *testing.B) {
	people, _ := benchPeople(300)
	rows := make([]map[string]any, 10000)
	for i := range rows {
		p := people[i%len(people)]
		rows[i] = map[string]any{"orderId": fmt.Sprintf("ORD-%06d", 100001+i), "orderDate": "2025-03-14", "salesforceId": "00Q5f000001abcXYZ",
			"name": p[0], "email": p[1], "phone": p[2], "product": "Widget Pro", "quantity": "3", "amount": "129.00", "Status": "shipped"}
	}
	raw, _ := json.Marshal(map[string]any{"rows": rows})
	text, _ := json.Marshal([]map[string]string{{"type": "text", "text": string(raw)}})
	res := &mcptool.Result{StructuredContent: raw, Content: text}
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		s, err := NewSession(nil, Config{})
		if err != nil {
			b.Fatal(err)
		}
		s.learn("google-drive", res)
	}
}

func mustDetector(b *testing.B) *Detector {
	d, err := NewDetector(nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// BenchmarkGuardCall is privacy's cost per tool call of the article's
// import (flow rules on): arguments checked for tokens and flows, the small
// result learned. The call itself does nothing.
func BenchmarkGuardCall(b *testing.B) {
	people, _ := benchPeople(300)
	sheetRows := make([]map[string]any, len(people))
	for i, p := range people {
		sheetRows[i] = map[string]any{"name": p[0], "email": p[1], "phone": p[2]}
	}
	raw, _ := json.Marshal(map[string]any{"rows": sheetRows})
	fake := &fakeCaller{results: map[string]*mcptool.Result{"google-drive": {StructuredContent: raw}, "salesforce": structured(`{"id":"00Q5f000001abcXYZ","success":true}`)}}
	s, err := NewSession(NewStore(b.TempDir(), 0), Config{Tokenize: true, Flows: []Flow{{From: "google-drive", To: []string{"salesforce"}}}})
	if err != nil {
		b.Fatal(err)
	}
	c := s.Caller(fake)
	ctx := context.Background()
	if _, err := c.CallTool(ctx, "google-drive", "getSheet", json.RawMessage(`{}`)); err != nil {
		b.Fatal(err)
	}
	p := people[7]
	args, _ := json.Marshal(map[string]any{"objectType": "Lead", "recordId": "00Q5f000001abcXYZ", "data": map[string]string{"Email": p[1], "Phone": p[2], "Name": p[0]}})
	for b.Loop() {
		if _, err := c.CallTool(ctx, "salesforce", "updateRecord", args); err != nil {
			b.Fatal(err)
		}
		fake.sent = fake.sent[:0]
	}
}
