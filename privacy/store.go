package privacy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpcode/mcpcode/internal/filelock"
)

// Files of a store, in its directory.
const (
	storeFile = "tokens.json"
	lockName  = "tokens.lock"
)

// DefaultMaxEntries bounds a store: beyond it, the values used least
// recently are dropped (their tokens stop resolving; their numbers are not
// reused).
const DefaultMaxEntries = 100_000

// Store is a workspace's token store: a 0600 file that maps each value
// ever seen or shown to its token and to the servers it came from. It is
// safe for concurrent use, also by several processes (a file lock guards
// every change).
type Store struct {
	dir string
	max int

	mu    sync.Mutex
	data  *storeData
	stamp fileStamp
}

// NewStore returns the store kept in dir (created 0700 on first write);
// maxEntries <= 0 means DefaultMaxEntries.
func NewStore(dir string, maxEntries int) *Store {
	if maxEntries <= 0 {
		maxEntries = DefaultMaxEntries
	}
	return &Store{dir: dir, max: maxEntries}
}

// Path returns the store's file.
func (st *Store) Path() string { return filepath.Join(st.dir, storeFile) }

// storeData is the file's content.
type storeData struct {
	Version int `json:"version"`
	// Next is the last number given to a token of each kind: numbers are
	// never reused, Forget included.
	Next map[string]int `json:"next"`
	// Seq orders uses, for dropping the least recently used entries.
	Seq     int64    `json:"seq"`
	Entries []*entry `json:"entries"`

	byKey   map[string]*entry
	byToken map[string]*entry
}

// entry is one value and its token.
type entry struct {
	Kind  string `json:"kind"`
	N     int    `json:"n"`
	Key   string `json:"key"`
	Value string `json:"value"`
	// From are the servers whose results held the value, sorted.
	From []string `json:"from,omitempty"`
	Used int64    `json:"used"`
}

func (e *entry) token() string { return "[" + e.Kind + "_" + strconv.Itoa(e.N) + "]" }

const storeVersion = 1

func newStoreData() *storeData {
	return &storeData{Version: storeVersion, Next: map[string]int{}, byKey: map[string]*entry{}, byToken: map[string]*entry{}}
}

func (d *storeData) index() {
	d.byKey = make(map[string]*entry, len(d.Entries))
	d.byToken = make(map[string]*entry, len(d.Entries))
	for _, e := range d.Entries {
		d.byKey[e.Key] = e
		d.byToken[e.token()] = e
	}
}

// fileStamp tells whether the file changed since it was read.
type fileStamp struct {
	size int64
	mod  time.Time
	ok   bool
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{size: fi.Size(), mod: fi.ModTime(), ok: true}
}

// refresh loads the file if it changed. Callers hold st.mu.
func (st *Store) refresh() error {
	path := st.Path()
	stamp := stampOf(path)
	if st.data != nil && stamp == st.stamp {
		return nil
	}
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if st.data == nil || st.stamp.ok {
			st.data, st.stamp = newStoreData(), fileStamp{}
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the token store: %w", err)
	}
	d := newStoreData()
	if err := json.Unmarshal(raw, d); err != nil || d.Version != storeVersion {
		return fmt.Errorf("the token store %s is damaged or from another mcpcode version: clear it with `mcpcode privacy forget`", path)
	}
	if d.Next == nil {
		d.Next = map[string]int{}
	}
	d.index()
	st.data, st.stamp = d, stamp
	return nil
}

// save writes the data atomically, readable by the owner only. Callers
// hold st.mu and the file lock.
func (st *Store) save() error {
	if err := os.MkdirAll(st.dir, 0o700); err != nil {
		return fmt.Errorf("writing the token store: %w", err)
	}
	raw, err := json.Marshal(st.data)
	if err != nil {
		return fmt.Errorf("writing the token store: %w", err)
	}
	if err := writeFileAtomic(st.Path(), raw); err != nil {
		return fmt.Errorf("writing the token store: %w", err)
	}
	st.stamp = stampOf(st.Path())
	return nil
}

// update runs fn on the latest data under the in-process and file locks,
// then saves.
func (st *Store) update(fn func(d *storeData)) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	unlock, err := st.lock()
	if err != nil {
		return fmt.Errorf("locking the token store: %w", err)
	}
	defer unlock()
	if err := st.refresh(); err != nil {
		return err
	}
	fn(st.data)
	st.evict()
	return st.save()
}

// lock takes the store's file lock (its lock file created 0600), waiting
// for another process that holds it.
func (st *Store) lock() (func(), error) {
	if err := os.MkdirAll(st.dir, 0o700); err != nil {
		return nil, err
	}
	return filelock.LockPath(filepath.Join(st.dir, lockName), 0o600, nil)
}

// evict drops the least recently used entries beyond the bound. Callers
// hold st.mu.
func (st *Store) evict() {
	d := st.data
	if len(d.Entries) <= st.max {
		return
	}
	slices.SortStableFunc(d.Entries, func(a, b *entry) int {
		switch {
		case a.Used < b.Used:
			return 1
		case a.Used > b.Used:
			return -1
		}
		return 0
	})
	d.Entries = d.Entries[:st.max]
	slices.SortFunc(d.Entries, func(a, b *entry) int {
		if c := strings.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		return a.N - b.N
	})
	d.index()
}

// lookupToken returns the entry of a token such as "[EMAIL_3]".
func (st *Store) lookupToken(tok string) (entry, bool, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.refresh(); err != nil {
		return entry{}, false, err
	}
	e, ok := st.data.byToken[tok]
	if !ok {
		return entry{}, false, nil
	}
	return *e, true, nil
}

// origins returns the servers a stored value came from.
func (st *Store) origins(key string) []string {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.data == nil {
		return nil
	}
	if e, ok := st.data.byKey[key]; ok {
		return e.From
	}
	return nil
}

// loadNames adds the stored names to x.
func (st *Store) loadNames(x *NameIndex) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.refresh(); err != nil {
		return err
	}
	for _, e := range st.data.Entries {
		if e.Kind == KindName {
			x.Add(e.Value, 1)
		}
	}
	return nil
}

// Forget drops every value of the store. Token numbers go on from where
// they were, so a token shown before never stands for another value.
func (st *Store) Forget() error {
	return st.update(func(d *storeData) {
		d.Entries = nil
		d.index()
	})
}

// Stats counts a store's tokens by kind; it never shows values.
type Stats struct {
	Path    string         `json:"path"`
	Exists  bool           `json:"exists"`
	Entries int            `json:"entries"`
	Max     int            `json:"max"`
	ByKind  map[string]int `json:"byKind"`
	Bytes   int64          `json:"bytes"`
}

// Stats describes the store without its values.
func (st *Store) Stats() (Stats, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	s := Stats{Path: st.Path(), Max: st.max, ByKind: map[string]int{}}
	if err := st.refresh(); err != nil {
		return s, err
	}
	s.Exists, s.Bytes = st.stamp.ok, st.stamp.size
	s.Entries = len(st.data.Entries)
	for _, e := range st.data.Entries {
		s.ByKind[e.Kind]++
	}
	return s, nil
}

// writeFileAtomic writes data to a temporary 0600 file next to path and
// renames it over path.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	err = tmp.Chmod(0o600)
	if err == nil {
		_, err = tmp.Write(data)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
