package gateway

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpcode/mcpcode/internal/fileowner"
)

// effectiveUID is the user the signing secret must belong to (a variable
// so that a test can pose as another user).
var effectiveUID = os.Geteuid

// The requestState of an input_required round. A host must echo it when it
// retries the call with its answers; the state tells the replica that gets
// the retry which run it continues, which round it answers and what the
// person was asked. It cannot be forged or replayed:
//
//   - it is signed with HMAC-SHA256 under a secret of the workspace
//     (.mcpcode/serve/secret, created once, mode 0600), which every replica
//     serving the workspace shares and no host knows;
//   - it is bound to the host's call (tool name and arguments) and to
//     exactly what was asked (for a write: server, tool and the arguments
//     as they will be sent), and for a run another replica can resume, to
//     the journal of its calls (by SHA-256);
//   - it expires (stateTTL after it was issued);
//   - it is used once: the replica that accepts it first creates a marker
//     file with O_EXCL in the shared workspace, and any later use is
//     refused, on any replica.

// stateTTL is how long a host has to answer a round.
const stateTTL = 10 * time.Minute

// Files of the serve state, under the workspace's .mcpcode/.
const (
	serveStateDir = "serve"
	secretName    = "secret"
	runsName      = "runs"
)

// stateVersion prefixes every requestState and is part of what is signed.
const stateVersion = "mcpcode-rs1"

// roundState is what a requestState carries.
type roundState struct {
	// Run identifies the run (random, 128 bits).
	Run string `json:"run"`
	// Round counts the run's rounds, from 1.
	Round int `json:"round"`
	// Expires is when the state stops being accepted (Unix milliseconds).
	Expires int64 `json:"exp"`
	// Call binds the host's tool call: its name and arguments.
	Call string `json:"call"`
	// Kind and Question say what the person was asked: questionWrite and
	// the write's binding, or questionUpstream and the request's.
	Kind     string `json:"kind"`
	Question string `json:"q"`
	// Journal is the SHA-256 of the run's journal file; "" when the run
	// can be resumed only by the process that holds it.
	Journal string `json:"journal,omitempty"`
}

// Why a requestState is refused. Each is reported to the host as an
// invalid-params error, and nothing is sent upstream.
var (
	errStateForged  = errors.New("requestState was not issued by this server for this workspace, or it was changed")
	errStateExpired = errors.New("requestState has expired")
	errStateCall    = errors.New("requestState belongs to another call: the tool or its arguments are not those of the call that was asked about")
	errStateUsed    = errors.New("requestState was already used")
)

// errShortSecret is a secret file still being written.
var errShortSecret = errors.New("the signing secret is incomplete")

// stateStore signs and checks the states of one workspace, and keeps the
// files that let replicas share runs (.mcpcode/serve/).
type stateStore struct {
	dir string

	mu  sync.Mutex
	key []byte
	// keyFile is the secret file the key was read from: when the file is
	// deleted, replaced or its mode changes, the key is read again (so
	// deleting it rotates the secret on running replicas too).
	keyFile os.FileInfo
	clock   func() time.Time // time.Now; tests move it
}

func newStateStore(stateDir string) *stateStore {
	return &stateStore{dir: filepath.Join(stateDir, serveStateDir), clock: time.Now}
}

func (s *stateStore) now() time.Time {
	s.mu.Lock()
	clock := s.clock
	s.mu.Unlock()
	return clock()
}

// setClock replaces the store's clock (tests).
func (s *stateStore) setClock(clock func() time.Time) {
	s.mu.Lock()
	s.clock = clock
	s.mu.Unlock()
}

func (s *stateStore) runsDir() string { return filepath.Join(s.dir, runsName) }

// secret returns the workspace's signing key, creating it on first use
// when create is set. Replicas that start at once agree on one key: each
// writes a candidate to a temporary file and links it into place, which
// fails for all but the first. The key is kept while its file stays the
// same (a stat per use).
func (s *stateStore) secret(create bool) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	path := filepath.Join(s.dir, secretName)
	if s.key != nil {
		fi, err := os.Lstat(path)
		if err == nil && os.SameFile(fi, s.keyFile) && fi.Mode() == s.keyFile.Mode() &&
			fi.Size() == s.keyFile.Size() && fi.ModTime().Equal(s.keyFile.ModTime()) {
			return s.key, nil
		}
		s.key, s.keyFile = nil, nil
	}
	key, fi, err := readSecret(path)
	if errors.Is(err, fs.ErrNotExist) && create {
		if err := createSecret(s.dir, path); err != nil {
			return nil, err
		}
		key, fi, err = readSecret(path)
	}
	// Another replica may be writing it (file systems without hard links):
	// a short file gets a moment to be complete.
	for i := 0; errors.Is(err, errShortSecret) && i < 20; i++ {
		time.Sleep(50 * time.Millisecond)
		key, fi, err = readSecret(path)
	}
	if err != nil {
		return nil, err
	}
	s.key, s.keyFile = key, fi
	return key, nil
}

func createSecret(dir, path string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	raw := make([]byte, 32)
	_, _ = rand.Read(raw)                           // never fails (crypto/rand, Go 1.24)
	tmp, err := os.CreateTemp(dir, ".secret.tmp-*") // mode 0600
	if err != nil {
		return fmt.Errorf("creating the signing secret in %s: %w", dir, err)
	}
	name := tmp.Name()
	defer os.Remove(name)
	_, err = tmp.WriteString(hex.EncodeToString(raw) + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing the signing secret %s: %w", name, err)
	}
	err = os.Link(name, path)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return nil
	}
	// A file system without hard links: create the file exclusively
	// instead (a replica that reads it while it is being written waits,
	// see secret).
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("creating the signing secret %s: %w", path, err)
	}
	_, err = f.WriteString(hex.EncodeToString(raw) + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing the signing secret %s: %w", path, err)
	}
	return nil
}

// readSecret reads the signing key, and the file's information; it
// refuses a file others may read or write, or one that is not a plain
// file.
func readSecret(path string) ([]byte, os.FileInfo, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("the signing secret %s is not a regular file: remove it, and mcpcode serve creates a new one", path)
	}
	if uid, ok := fileowner.Of(fi); ok && int(uid) != effectiveUID() {
		// A secret another account put there (a shared volume, a serve run
		// as root) would let that account sign confirmations.
		return nil, nil, fmt.Errorf("the signing secret %s belongs to another user (uid %d, not %d): remove it, and mcpcode serve creates a new one", path, uid, effectiveUID())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, nil, fmt.Errorf("the signing secret %s may be read or written by others (mode %04o): run chmod 600 %s", path, fi.Mode().Perm(), path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 1024))
	if err != nil {
		return nil, nil, err
	}
	if len(data) < 64 && strings.Trim(string(data), "0123456789abcdef") == "" {
		return nil, nil, fmt.Errorf("%w: %s (when no replica is creating it, remove it, and mcpcode serve creates a new one)", errShortSecret, path)
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(data)))
	if err != nil || len(key) != 32 {
		return nil, nil, fmt.Errorf("the signing secret %s is damaged (want 64 hex digits): remove it, and mcpcode serve creates a new one (pending confirmations are then refused)", path)
	}
	return key, fi, nil
}

// sign encodes a state: version, payload and HMAC, each part base64url.
func (s *stateStore) sign(st roundState) (string, error) {
	key, err := s.secret(true)
	if err != nil {
		return "", err
	}
	payload, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	return stateVersion + "." + base64.RawURLEncoding.EncodeToString(payload) + "." +
		base64.RawURLEncoding.EncodeToString(stateMAC(key, payload)), nil
}

func stateMAC(key, payload []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(stateVersion + "\n"))
	m.Write(payload)
	return m.Sum(nil)
}

// verify checks a state's signature, expiry and binding to the call, and
// returns what it carries. It does not use the state (see use).
func (s *stateStore) verify(token, call string) (roundState, error) {
	var st roundState
	parts := strings.Split(token, ".")
	if len(parts) != 3 || parts[0] != stateVersion || len(token) > 4096 {
		return st, errStateForged
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(parts[1])
	mac, err2 := base64.RawURLEncoding.DecodeString(parts[2])
	if err1 != nil || err2 != nil {
		return st, errStateForged
	}
	key, err := s.secret(false)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return st, errStateForged // no state was ever issued here
		}
		return st, err
	}
	if !hmac.Equal(mac, stateMAC(key, payload)) {
		return st, errStateForged
	}
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil || !validRunID(st.Run) || st.Round < 1 {
		return roundState{}, errStateForged
	}
	if s.now().UnixMilli() >= st.Expires {
		return st, fmt.Errorf("%w (at %s)", errStateExpired, time.UnixMilli(st.Expires).UTC().Format(time.RFC3339))
	}
	if !hmac.Equal([]byte(st.Call), []byte(call)) {
		return st, errStateCall
	}
	return st, nil
}

// use marks a state used, once for all replicas sharing the workspace: the
// first call creates the marker, every later one gets errStateUsed.
func (s *stateStore) use(st roundState) error {
	if err := os.MkdirAll(s.runsDir(), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(s.markerPath(st.Run, st.Round), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return errStateUsed
	}
	if err != nil {
		return fmt.Errorf("marking the requestState used: %w", err)
	}
	return f.Close()
}

func (s *stateStore) markerPath(run string, round int) string {
	return filepath.Join(s.runsDir(), run+"."+strconv.Itoa(round)+".used")
}

func (s *stateStore) journalPath(run string) string {
	return filepath.Join(s.runsDir(), run+".journal")
}

// sweep removes the journals and markers of runs whose states have all
// expired (their files are older than twice stateTTL, a margin for clocks
// that differ between replicas).
func (s *stateStore) sweep() {
	entries, err := os.ReadDir(s.runsDir())
	if err != nil {
		return
	}
	limit := s.now().Add(-2 * stateTTL)
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if fi.ModTime().Before(limit) {
			_ = os.Remove(filepath.Join(s.runsDir(), e.Name()))
		}
	}
}

// countJournals counts the journals on disk.
func (s *stateStore) countJournals() int {
	entries, err := os.ReadDir(s.runsDir())
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".journal") {
			n++
		}
	}
	return n
}

// newRunID returns a fresh run identifier.
func newRunID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func validRunID(id string) bool {
	if len(id) != 32 {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil && strings.ToLower(id) == id
}

// digest is the SHA-256 of parts, each length-prefixed so that no two
// lists of parts share a digest.
func digest(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))
}
