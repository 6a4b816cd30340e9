package typecheck

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpcode/mcpcode/internal/atomicfile"
)

// Bounds of the cache: entries are a few kilobytes; past maxEntries the
// least recently used are removed down to keepEntries.
const (
	maxEntries    = 1000
	keepEntries   = 750
	maxEntryBytes = 8 << 20
)

// resultCache keeps check results in a directory, one file per check key,
// each with the files the check read and their hashes: a result is used
// only while all of them are unchanged. A result with an import that was
// not found is not kept (the file may appear), nor one of a check whose
// files changed while it ran (modified after it started, by the file
// system's clock, or a program file saved again: the compiler may have
// read other text than the one recorded). What it does not see: a
// new file that an import would now find first (x.ts created beside the
// x/index.ts it found); the next change of the program checks again.
type resultCache struct{ dir string }

// dep is a workspace file a check read.
type dep struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	data   []byte
}

type cacheEntry struct {
	Key    string  `json:"key"`
	Deps   []dep   `json:"deps"`
	Result *Result `json:"result"`
}

func (c resultCache) file(key string) string { return filepath.Join(c.dir, key+".json") }

// lookup returns the cached result of key when every file it depends on
// is unchanged, else nil.
func (c resultCache) lookup(key, ws string) *Result {
	f := c.file(key)
	fi, err := os.Stat(f)
	if err != nil || fi.Size() > maxEntryBytes {
		return nil
	}
	data, err := os.ReadFile(f)
	if err != nil {
		return nil
	}
	var e cacheEntry
	if json.Unmarshal(data, &e) != nil || e.Key != key || e.Result == nil {
		return nil
	}
	for _, d := range e.Deps {
		if !filepath.IsLocal(filepath.FromSlash(d.Path)) {
			return nil
		}
		data, err := os.ReadFile(filepath.Join(ws, filepath.FromSlash(d.Path)))
		if err != nil || hashBytes(data) != d.SHA256 {
			return nil
		}
	}
	now := time.Now()
	_ = os.Chtimes(f, now, now) // recently used
	return e.Result
}

// store records a result; a failure to write only costs the next check
// its speed.
func (c resultCache) store(key string, deps []dep, res *Result) {
	if deps == nil {
		deps = []dep{}
	}
	data, err := json.Marshal(cacheEntry{Key: key, Deps: deps, Result: res})
	if err != nil || len(data) > maxEntryBytes {
		return
	}
	if atomicfile.Write(c.file(key), data, 0o644) != nil {
		return
	}
	c.prune()
}

// prune removes the least recently used entries when there are too many.
func (c resultCache) prune() {
	entries, err := os.ReadDir(c.dir)
	if err != nil || len(entries) <= maxEntries {
		return
	}
	type aged struct {
		name string
		t    time.Time
	}
	var all []aged
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		if fi, err := e.Info(); err == nil {
			all = append(all, aged{e.Name(), fi.ModTime()})
		}
	}
	slices.SortFunc(all, func(a, b aged) int { return a.t.Compare(b.t) })
	for i := 0; i < len(all)-keepEntries; i++ {
		_ = os.Remove(filepath.Join(c.dir, all[i].name))
	}
}
