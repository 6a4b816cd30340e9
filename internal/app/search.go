package app

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/mcpcode/mcpcode/generator"
	"github.com/mcpcode/mcpcode/internal/layout"
	"github.com/mcpcode/mcpcode/internal/lazyregexp"
)

// SearchHit is one tool found by SearchTools.
type SearchHit struct {
	Server   string `json:"server"`
	Tool     string `json:"tool"`
	Function string `json:"function"`
	// File is the tool's file, workspace-relative ("servers/x/y.ts").
	File  string  `json:"file"`
	Score float64 `json:"score"`
	// Summary is the first sentence of the tool's description.
	Summary string `json:"summary,omitempty"`
	// Import is the line that imports the tool's function.
	Import string `json:"import"`
	// Source is the tool file's TypeScript (detail "full" only).
	Source string `json:"source,omitempty"`
}

// SearchTools ranks the generated tree's tools against a natural-language
// query (tool and server names, titles, descriptions, parameter names) and
// returns the best limit hits, best first. With full set, each hit carries
// its file's TypeScript. A workspace whose tree was never generated is an
// error that says to run gen.
func (w *Workspace) SearchTools(query string, limit int, full bool) ([]SearchHit, error) {
	idx, err := w.searchIndex()
	if err != nil {
		return nil, err
	}
	if len(query) > maxQueryBytes {
		return nil, usageErrorf(fmt.Errorf("the query is %d bytes long: keep it under %d (a few words say what the tool should do)", len(query), maxQueryBytes))
	}
	terms := uniqueTerms(searchTerms(query))
	if len(terms) == 0 {
		return nil, usageErrorf(errors.New("the query has no words to search for"))
	}
	if limit <= 0 {
		limit = 10
	}
	hits := idx.rank(terms, limit)
	if full {
		// The source is read as read reads it (ReadTree): no symbolic
		// link, no path out of servers/, whatever the manifest says or
		// servers/ became since the index was cached.
		for i := range hits {
			data, entries, err := w.ReadTree(hits[i].File)
			if err == nil && entries != nil {
				err = fmt.Errorf("cannot read %s: it is a directory", hits[i].File)
			}
			if err != nil {
				return nil, fmt.Errorf("%w (run `mcpcode gen` to write the tree again)", err)
			}
			hits[i].Source = string(data)
		}
	}
	return hits, nil
}

// maxQueryBytes bounds a search query: its cost grows with its words.
const maxQueryBytes = 2000

// uniqueTerms drops repeated terms: saying a word twice does not make it
// count twice.
func uniqueTerms(terms []string) []string {
	seen := map[string]bool{}
	out := terms[:0]
	for _, t := range terms {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// searchIndex returns the tree's index, rebuilt when the manifest changed.
func (w *Workspace) searchIndex() (*toolIndex, error) {
	st, err := os.Stat(w.Manifest())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, usageErrorf(errors.New("this workspace has no generated tree yet: run `mcpcode gen` first"))
	}
	if err != nil {
		return nil, err
	}
	key := fmt.Sprintf("%s|%d|%d", w.Manifest(), st.Size(), st.ModTime().UnixNano())
	indexCache.mu.Lock()
	defer indexCache.mu.Unlock()
	if idx, ok := indexCache.byKey[key]; ok {
		return idx, nil
	}
	m, err := generator.ReadManifest(w.Manifest())
	if err != nil {
		return nil, err
	}
	// The tree is read through its root, refused when servers/ is a
	// symbolic link (openPart), as read refuses it.
	root, err := w.openPart(layout.ServersDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, usageErrorf(fmt.Errorf("cannot search the tree: %w", err))
	}
	read := func(string) []byte { return nil }
	if root != nil {
		defer root.Close()
		read = func(rel string) []byte { data, _ := root.ReadFile(rel); return data }
	}
	idx := buildIndex(read, m)
	if len(indexCache.byKey) > 16 {
		clear(indexCache.byKey)
	}
	indexCache.byKey[key] = idx
	return idx, nil
}

// indexCache keeps built indexes per manifest version: a long-running
// server searches the same tree many times.
var indexCache = struct {
	mu    sync.Mutex
	byKey map[string]*toolIndex
}{byKey: map[string]*toolIndex{}}

// toolIndex is a BM25 index over the tools' fields.
type toolIndex struct {
	docs   []toolDoc
	df     map[string]int
	avgLen float64
}

type toolDoc struct {
	hit SearchHit
	tf  map[string]float64
	len float64
}

// Field weights: a word in a tool's name says more than one in its
// description.
const (
	weightName   = 3.0
	weightTitle  = 2.0
	weightServer = 1.5
	weightText   = 1.0
)

var (
	docCommentRE = lazyregexp.New(`/\*\*((?:[^*]|\*+[^*/])*)\*+/\s*export async function`)
	propertyRE   = lazyregexp.New(`(?m)^\s+(?:readonly\s+)?"?([A-Za-z_$][\w$-]*)"?\??:`)
)

func buildIndex(read func(rel string) []byte, m *generator.Manifest) *toolIndex {
	idx := &toolIndex{df: map[string]int{}}
	var total float64
	for _, s := range m.Servers {
		for _, t := range s.Tools {
			src := read(filepath.FromSlash(t.File))
			text := string(src)
			desc := ""
			if mm := docCommentRE.FindAllStringSubmatch(text, -1); len(mm) > 0 {
				desc = cleanDoc(mm[len(mm)-1][1])
			}
			var params []string
			for _, p := range propertyRE.FindAllStringSubmatch(text, -1) {
				params = append(params, p[1])
			}
			d := toolDoc{tf: map[string]float64{}, hit: SearchHit{
				Server: s.Name, Tool: t.Name, Function: t.Function,
				File:    layout.ServersDir + "/" + t.File,
				Summary: firstSentence(desc),
				Import:  fmt.Sprintf("import { %s } from \"%s/%s\";", t.Function, layout.ServersDir, strings.TrimSuffix(t.File, ".ts")),
			}}
			add := func(text string, weight float64) {
				for _, term := range searchTerms(text) {
					d.tf[term] += weight
					d.len += weight
				}
			}
			add(t.Name+" "+t.Function, weightName)
			add(t.Title, weightTitle)
			add(s.Name+" "+s.Info.Title, weightServer)
			add(desc, weightText)
			add(strings.Join(params, " "), weightText)
			for term := range d.tf {
				idx.df[term]++
			}
			total += d.len
			idx.docs = append(idx.docs, d)
		}
	}
	if len(idx.docs) > 0 {
		idx.avgLen = total / float64(len(idx.docs))
	}
	return idx
}

// rank scores every tool with BM25 and returns the best, ties broken by
// server and tool name so results are deterministic.
func (idx *toolIndex) rank(terms []string, limit int) []SearchHit {
	const k1, b = 1.2, 0.75
	n := float64(len(idx.docs))
	var hits []SearchHit
	for _, d := range idx.docs {
		score := 0.0
		for _, term := range terms {
			tf := d.tf[term]
			if tf == 0 {
				continue
			}
			df := float64(idx.df[term])
			idf := math.Log(1 + (n-df+0.5)/(df+0.5))
			score += idf * tf * (k1 + 1) / (tf + k1*(1-b+b*d.len/idx.avgLen))
		}
		if score > 0 {
			h := d.hit
			h.Score = math.Round(score*1000) / 1000
			hits = append(hits, h)
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		if hits[i].Server != hits[j].Server {
			return hits[i].Server < hits[j].Server
		}
		return hits[i].Tool < hits[j].Tool
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

// cleanDoc turns a JSDoc body into plain text without its tags.
func cleanDoc(body string) string {
	var lines []string
	for _, l := range strings.Split(body, "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "*"))
		if strings.HasPrefix(l, "@") {
			continue
		}
		lines = append(lines, l)
	}
	return strings.TrimSpace(strings.Join(lines, " "))
}

// firstSentence is the text up to its first full stop (at most 200
// characters).
func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}

// stopWords carry no meaning for tool search.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "to": true, "and": true, "or": true, "in": true, "on": true,
	"for": true, "with": true, "by": true, "is": true, "are": true, "be": true, "this": true, "that": true,
	"it": true, "its": true, "as": true, "from": true, "at": true, "i": true, "me": true, "my": true, "we": true,
	"want": true, "need": true, "how": true, "do": true, "can": true, "some": true, "all": true, "into": true,
	"which": true, "what": true, "if": true, "not": true, "you": true, "your": true, "use": true, "when": true,
}

// searchTerms splits text into lowercase word stems: camelCase, snake_case
// and kebab-case names give their parts.
func searchTerms(text string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	runes := []rune(text)
	for i, r := range runes {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && len(cur) > 0 {
				prev := runes[i-1]
				nextLower := i+1 < len(runes) && unicode.IsLower(runes[i+1])
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
					flush()
				}
			}
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
	var out []string
	for _, w := range words {
		w = strings.ToLower(w)
		if stopWords[w] {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

// stem strips common English endings, enough for names and descriptions
// to meet queries ("listing issues" finds list_issue).
func stem(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 5 && strings.HasSuffix(w, "ing"):
		return w[:len(w)-3]
	case len(w) > 4 && strings.HasSuffix(w, "ed") && !strings.HasSuffix(w, "eed"):
		return w[:len(w)-2]
	case len(w) > 4 && (strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "xes")):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us"):
		return w[:len(w)-1]
	}
	return w
}
