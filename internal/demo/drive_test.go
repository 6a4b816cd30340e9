package demo

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

type fileList struct {
	Files []driveFile `json:"files"`
}

func TestListFiles(t *testing.T) {
	cs := connect(t, "google-drive")
	tests := []struct {
		query     string
		wantNames []string // nil: check count only
		wantCount int
	}{
		{query: "", wantCount: len(driveFiles)},
		{query: "ORDERS", wantNames: []string{ordersTitle}, wantCount: 1},
		{query: "q3", wantNames: []string{transcriptTitle, "Q3 board deck.pdf"}, wantCount: 2},
		{query: "no such file", wantNames: []string{}, wantCount: 0},
	}
	for _, tt := range tests {
		t.Run("query="+tt.query, func(t *testing.T) {
			var got fileList
			text := callOK(t, cs, "listFiles", map[string]any{"query": tt.query}, &got)
			if len(got.Files) != tt.wantCount {
				t.Fatalf("got %d files, want %d", len(got.Files), tt.wantCount)
			}
			if !strings.Contains(text, `"files":[`) {
				t.Errorf("files must be an array, even when empty: %s", text)
			}
			if tt.wantNames != nil {
				var names []string
				for _, f := range got.Files {
					names = append(names, f.Name)
				}
				if !slices.Equal(names, tt.wantNames) && !(len(names) == 0 && len(tt.wantNames) == 0) {
					t.Errorf("names = %q, want %q", names, tt.wantNames)
				}
			}
		})
	}
}

// TestListFilesSharesArticleID checks the article's premise: abc123 is both
// a document and a sheet.
func TestListFilesSharesArticleID(t *testing.T) {
	var got fileList
	callOK(t, connect(t, "google-drive"), "listFiles", nil, &got)
	mimes := map[string]bool{}
	for _, f := range got.Files {
		if f.ID == "abc123" {
			mimes[f.MimeType] = true
		}
	}
	if !mimes[mimeDoc] || !mimes[mimeSheet] {
		t.Errorf("abc123 mime types = %v, want a document and a spreadsheet", mimes)
	}
}

// TestEveryListedFileIsReadable checks the catalog against the data: Docs
// and Sheets open with their tool under the listed name, other files are
// refused by both tools.
func TestEveryListedFileIsReadable(t *testing.T) {
	cs := connect(t, "google-drive")
	var list fileList
	callOK(t, cs, "listFiles", nil, &list)
	for _, f := range list.Files {
		t.Run(f.ID+"/"+f.MimeType, func(t *testing.T) {
			switch f.MimeType {
			case mimeDoc:
				var doc documentOut
				callOK(t, cs, "getDocument", map[string]any{"documentId": f.ID, "fields": "title"}, &doc)
				if doc.Title == nil || *doc.Title != f.Name {
					t.Errorf("document title = %v, listed as %q", doc.Title, f.Name)
				}
			case mimeSheet:
				var sh sheetOut
				if f.ID == "abc123" {
					_, sh = fetchOrders(t)
				} else {
					callOK(t, cs, "getSheet", map[string]any{"sheetId": f.ID}, &sh)
				}
				if sh.Title != f.Name {
					t.Errorf("sheet title = %q, listed as %q", sh.Title, f.Name)
				}
			default:
				callErr(t, cs, "getDocument", map[string]any{"documentId": f.ID}, f.MimeType)
				callErr(t, cs, "getSheet", map[string]any{"sheetId": f.ID}, f.MimeType)
			}
		})
	}
}

type documentOut struct {
	Title   *string `json:"title"`
	Content *string `json:"content"`
}

func TestGetDocumentFields(t *testing.T) {
	cs := connect(t, "google-drive")
	tests := []struct {
		id, fields             string
		wantTitle, wantContent bool
	}{
		{"abc123", "", true, true},
		{"abc123", "title", true, false},
		{"abc123", "content", false, true},
		{"abc123", " Title , CONTENT ", true, true},
		{"ghi789", "", true, true},
		{"efg123", "title", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.id+"/"+tt.fields, func(t *testing.T) {
			args := map[string]any{"documentId": tt.id}
			if tt.fields != "" {
				args["fields"] = tt.fields
			}
			var got documentOut
			callOK(t, cs, "getDocument", args, &got)
			if (got.Title != nil) != tt.wantTitle || (got.Content != nil) != tt.wantContent {
				t.Errorf("title present = %v, content present = %v; want %v, %v",
					got.Title != nil, got.Content != nil, tt.wantTitle, tt.wantContent)
			}
			if got.Title != nil && *got.Title == "" {
				t.Error("empty title")
			}
		})
	}
}

// TestTranscript checks the size and shape of the article's 50,000-token
// meeting transcript.
func TestTranscript(t *testing.T) {
	var doc documentOut
	callOK(t, connect(t, "google-drive"), "getDocument", map[string]any{"documentId": "abc123"}, &doc)
	if *doc.Title != transcriptTitle {
		t.Errorf("title = %q, want %q", *doc.Title, transcriptTitle)
	}
	content := *doc.Content
	if len(content) < 180_000 {
		t.Fatalf("transcript has %d characters, want at least 180,000 (about 50k tokens)", len(content))
	}
	turn := regexp.MustCompile(`^\[(\d\d):\d\d:\d\d\] [A-Z][a-z]+ [A-Z][a-z]+: \S`)
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	var turns int
	var lastStamp string
	for _, line := range lines {
		if m := turn.FindStringSubmatch(line); m != nil {
			turns++
			if stamp := line[1:9]; stamp <= lastStamp {
				t.Fatalf("timestamps do not increase: %q after %q", stamp, lastStamp)
			} else {
				lastStamp = stamp
			}
		}
	}
	if turns < 500 || turns < len(lines)-10 {
		t.Errorf("%d of %d lines are speaker turns, want nearly all and at least 500", turns, len(lines))
	}
	if !strings.HasPrefix(lastStamp, "01:5") {
		t.Errorf("last timestamp = %s, want a two-hour meeting ending at 01:5x", lastStamp)
	}
	emails := regexp.MustCompile(`[a-z.]+[0-9]*@[a-z]+\.example`).FindAllString(content, -1)
	phones := regexp.MustCompile(`\(\d{3}\) 555-01\d\d`).FindAllString(content, -1)
	if len(emails) < 100 || len(phones) < 100 {
		t.Errorf("found %d emails and %d phone numbers, want at least 100 of each", len(emails), len(phones))
	}
	for _, want := range []string{"Maya Okafor", "maya.okafor@harborview.example", "(206) 555-0142"} {
		if !strings.Contains(content, want) {
			t.Errorf("transcript does not mention %q, the lead of the article's scenario", want)
		}
	}
}

func TestDriveErrors(t *testing.T) {
	cs := connect(t, "google-drive")
	tests := []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"getDocument", map[string]any{"documentId": "nope"}, []string{`no document "nope"`, "listFiles"}},
		{"getDocument", map[string]any{"documentId": "def456"}, []string{"Google Sheet", "getSheet"}},
		{"getDocument", map[string]any{"documentId": "mno345"}, []string{"application/pdf", "listFiles"}},
		{"getDocument", map[string]any{"documentId": "abc123", "fields": "title,author"}, []string{`unknown field "author"`, "title,content"}},
		{"getDocument", map[string]any{}, []string{"documentId"}},
		{"getDocument", map[string]any{"documentId": "abc123", "extra": 1}, []string{"extra"}},
		{"getSheet", map[string]any{"sheetId": "nope"}, []string{`no sheet "nope"`, "listFiles"}},
		{"getSheet", map[string]any{"sheetId": "ghi789"}, []string{"Google Doc", "getDocument"}},
		{"getSheet", map[string]any{"sheetId": 123}, []string{"sheetId"}},
	}
	for _, tt := range tests {
		t.Run(tt.tool+"/"+strings.Join(tt.want, ","), func(t *testing.T) {
			callErr(t, cs, tt.tool, tt.args, tt.want...)
		})
	}
}

type sheetOut struct {
	SheetID string           `json:"sheetId"`
	Title   string           `json:"title"`
	Columns []string         `json:"columns"`
	Rows    []map[string]any `json:"rows"`
}

func TestGetSheet(t *testing.T) {
	tests := []struct {
		id          string
		wantRows    int
		wantColumns []string
	}{
		{"abc123", 10_000, orderColumns},
		{"def456", 16, []string{"region", "quarter", "owner", "ownerEmail", "target", "booked"}},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			var got sheetOut
			if tt.id == "abc123" {
				_, got = fetchOrders(t)
			} else {
				callOK(t, connect(t, "google-drive"), "getSheet", map[string]any{"sheetId": tt.id}, &got)
			}
			if got.SheetID != tt.id || got.Title == "" {
				t.Errorf("sheetId = %q, title = %q", got.SheetID, got.Title)
			}
			if !slices.Equal(got.Columns, tt.wantColumns) {
				t.Errorf("columns = %v, want %v", got.Columns, tt.wantColumns)
			}
			if len(got.Rows) != tt.wantRows {
				t.Fatalf("got %d rows, want %d", len(got.Rows), tt.wantRows)
			}
			for i, row := range got.Rows {
				if len(row) != len(tt.wantColumns) {
					t.Fatalf("row %d has keys %v, want exactly the columns", i, row)
				}
				for _, c := range tt.wantColumns {
					v, ok := row[c]
					if !ok {
						t.Fatalf("row %d lacks column %q", i, c)
					}
					// Like Google Sheets' formatted values: every cell a string.
					if _, ok := v.(string); !ok {
						t.Fatalf("row %d column %q is %#v, want a string", i, c, v)
					}
				}
			}
		})
	}
}

func TestOrdersSheetContent(t *testing.T) {
	_, got := fetchOrders(t)
	statuses := map[string]int{}
	ids := map[string]bool{}
	date := regexp.MustCompile(`^2025-\d\d-\d\d$`)
	money := regexp.MustCompile(`^(0|[1-9]\d*)\.\d\d$`)
	quantity := regexp.MustCompile(`^([1-9]|1\d|2[0-5])$`)
	email := regexp.MustCompile(`^[a-z.0-9]+@[a-z]+\.example$`)
	for i, row := range got.Rows {
		statuses[row["Status"].(string)]++
		if id := row["orderId"].(string); ids[id] {
			t.Fatalf("row %d repeats orderId %s", i, id)
		} else {
			ids[id] = true
		}
		if !date.MatchString(row["orderDate"].(string)) || !email.MatchString(row["email"].(string)) {
			t.Fatalf("row %d has a bad date or email: %v", i, row)
		}
		// Cells are strings, numbers formatted as a sheet shows them.
		if amount, ok := row["amount"].(string); !ok || !money.MatchString(amount) || amount == "0.00" {
			t.Fatalf("row %d amount = %#v, want a positive amount formatted like \"1234.50\"", i, row["amount"])
		}
		if q, ok := row["quantity"].(string); !ok || !quantity.MatchString(q) {
			t.Fatalf("row %d quantity = %#v, want a count formatted like \"12\"", i, row["quantity"])
		}
	}
	for _, s := range []string{"pending", "shipped", "delivered", "cancelled"} {
		if statuses[s] == 0 {
			t.Errorf("no %s orders; statuses = %v", s, statuses)
		}
	}
	if len(statuses) != 4 {
		t.Errorf("statuses = %v, want exactly pending, shipped, delivered, cancelled", statuses)
	}
	if p := statuses["pending"]; p < 100 || p > 1000 {
		t.Errorf("%d pending orders, want a few percent of 10,000", p)
	}
}
