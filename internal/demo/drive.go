package demo

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const driveInstructions = "A demo Google Drive with synthetic data (every person, company, email and phone number is fictional). " +
	"Call listFiles to find ids; read Google Docs with getDocument and Google Sheets with getSheet. " +
	"Document abc123 is a two-hour sales-meeting transcript (about 200 KB); sheet abc123 holds 10,000 orders."

type listFilesInput struct {
	Query string `json:"query,omitempty" jsonschema:"Case-insensitive text that file names must contain; omit to list every file"`
}

type listFilesResult struct {
	Files []driveFile `json:"files"`
}

type getDocumentInput struct {
	DocumentID string `json:"documentId" jsonschema:"The id of the document to retrieve, as listed by listFiles (for example abc123)"`
	Fields     string `json:"fields,omitempty" jsonschema:"Comma-separated subset of title,content to return; omit for both"`
}

type documentResult struct {
	Title   string `json:"title,omitempty"`
	Content string `json:"content,omitempty"`
}

type getSheetInput struct {
	SheetID string `json:"sheetId" jsonschema:"The id of the spreadsheet to retrieve, as listed by listFiles (for example abc123)"`
}

type sheetResult struct {
	SheetID string              `json:"sheetId"`
	Title   string              `json:"title"`
	Columns []string            `json:"columns"`
	Rows    []map[string]string `json:"rows"`
}

// registerDrive adds the google-drive tools. The drive is read-only, so all
// servers share the process-wide dataset.
func registerDrive(s *mcp.Server) {
	addTypedTool(s, &mcp.Tool{
		Name:  "listFiles",
		Title: "List Drive files",
		Description: "Lists the files in Google Drive, most recently modified first. " +
			"Pass a returned id to getDocument for Google Docs or to getSheet for Google Sheets.",
		Annotations:  readOnly(),
		OutputSchema: listFilesOutput,
	}, listFiles)
	addTypedTool(s, &mcp.Tool{
		Name:  "getDocument",
		Title: "Get document",
		Description: "Retrieves a Google Docs document by id: its title and full plain-text content. " +
			"Documents can be long (a meeting transcript is about 50,000 tokens), so process them in code rather than printing them.",
		Annotations:  readOnly(),
		OutputSchema: getDocumentOutput,
	}, getDocument)
	addTypedTool(s, &mcp.Tool{
		Name:  "getSheet",
		Title: "Get sheet",
		Description: "Retrieves a Google Sheets spreadsheet by id: its column names and every row as an object keyed by column name. " +
			"Every cell is a string, formatted as the sheet shows it (numbers too: a quantity \"12\", an amount \"1234.50\"); convert with Number() to compute. " +
			"Sheets can hold thousands of rows, so filter them in code rather than printing them.",
		Annotations:  readOnly(),
		OutputSchema: getSheetOutput,
	}, getSheet)
}

func listFiles(_ context.Context, in listFilesInput) (listFilesResult, error) {
	needle := strings.ToLower(strings.TrimSpace(in.Query))
	files := []driveFile{}
	for _, f := range driveFiles {
		if strings.Contains(strings.ToLower(f.Name), needle) {
			files = append(files, f)
		}
	}
	return listFilesResult{Files: files}, nil
}

// documentFields are the values getDocument accepts in fields.
var documentFields = []string{"title", "content"}

func getDocument(_ context.Context, in getDocumentInput) (documentResult, error) {
	want, err := parseDocumentFields(in.Fields)
	if err != nil {
		return documentResult{}, err
	}
	doc, ok := sharedData().documents[in.DocumentID]
	if !ok {
		return documentResult{}, fileNotFound("document", in.DocumentID, mimeDoc, "getDocument")
	}
	var out documentResult
	if want["title"] {
		out.Title = doc.Title
	}
	if want["content"] {
		out.Content = doc.Content
	}
	return out, nil
}

// parseDocumentFields parses "title,content" into a set; empty means all.
func parseDocumentFields(fields string) (map[string]bool, error) {
	want := map[string]bool{}
	if strings.TrimSpace(fields) == "" {
		for _, f := range documentFields {
			want[f] = true
		}
		return want, nil
	}
	for _, f := range strings.Split(fields, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		if f != "title" && f != "content" {
			return nil, fmt.Errorf("unknown field %q in fields %q; use a comma-separated subset of %s", f, fields, strings.Join(documentFields, ","))
		}
		want[f] = true
	}
	return want, nil
}

func getSheet(_ context.Context, in getSheetInput) (sheetResult, error) {
	sh, ok := sharedData().sheets[in.SheetID]
	if !ok {
		return sheetResult{}, fileNotFound("sheet", in.SheetID, mimeSheet, "getSheet")
	}
	return sheetResult{SheetID: sh.ID, Title: sh.Title, Columns: sh.Columns, Rows: sh.Rows}, nil
}

// fileNotFound explains why id is not a file of the wanted kind and how to
// find one: if id names another kind of file, it says which tool reads it.
func fileNotFound(kind, id, wantMime, tool string) error {
	for _, f := range driveFiles {
		if f.ID != id || f.MimeType == wantMime {
			continue
		}
		switch f.MimeType {
		case mimeDoc:
			return fmt.Errorf("no %s %q: file %q is a Google Doc; read it with getDocument", kind, id, f.Name)
		case mimeSheet:
			return fmt.Errorf("no %s %q: file %q is a Google Sheet; read it with getSheet", kind, id, f.Name)
		default:
			return fmt.Errorf("no %s %q: file %q is %s, which %s cannot read; call listFiles to see the ids of readable files", kind, id, f.Name, f.MimeType, tool)
		}
	}
	return fmt.Errorf("no %s %q; call listFiles to see %s ids", kind, id, kind)
}
