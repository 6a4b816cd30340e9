//go:build linux

package session

import (
	"bufio"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary probe a socket as another process: with
// SESSION_PROBE=path it connects, sends a line and prints what came back
// ("closed" when the other end closed without a word).
func TestMain(m *testing.M) {
	if path := os.Getenv("SESSION_PROBE"); path != "" {
		c, err := net.Dial("unix", path)
		if err != nil {
			os.Stdout.WriteString("dial: " + err.Error() + "\n")
			os.Exit(0)
		}
		_, _ = c.Write([]byte("hello\n"))
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil && line == "" { // EOF, or a reset: the line sent was never read
			os.Stdout.WriteString("closed\n")
		} else {
			os.Stdout.WriteString("answered: " + line + "\n")
		}
		os.Exit(0)
	}
	if path := os.Getenv("SESSION_PLANT"); path != "" {
		plantSocket(path)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestDirIsChecked: a session directory must be a directory of this user
// that others cannot enter; anything else is refused by Listen and Dial.
func TestDirIsChecked(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	good := filepath.Join(base, "good")
	if err := Prepare(good); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(good); fi.Mode().Perm() != 0o700 {
		t.Errorf("Prepare made mode %o, want 0700", fi.Mode().Perm())
	}
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ dir, want string }{
		{open, "open to other users"},
		{link, "symbolic link"},
		{file, "not a directory"},
	} {
		if err := CheckDir(tc.dir); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckDir(%s) = %v, want %q", filepath.Base(tc.dir), err, tc.want)
		}
		if _, err := Listen(tc.dir, nil); err == nil {
			t.Errorf("Listen in %s succeeded", filepath.Base(tc.dir))
		}
		if _, err := Dial(t.Context(), tc.dir); err == nil {
			t.Errorf("Dial in %s succeeded", filepath.Base(tc.dir))
		}
	}
	if os.Geteuid() == 0 {
		// A directory of another user, even 0700.
		other := filepath.Join(base, "other")
		if err := os.Mkdir(other, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(other, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if err := CheckDir(other); err == nil || !strings.Contains(err.Error(), "owned by user 65534") {
			t.Errorf("CheckDir of another user's directory = %v", err)
		}
	}
}

// TestListenAndDial: the socket is 0600, a connection of this user gets
// through, and a long directory path (past a socket address's 108 bytes)
// works too.
func TestListenAndDial(t *testing.T) {
	t.Parallel()
	for _, long := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "s")
		if long {
			dir = filepath.Join(t.TempDir(), strings.Repeat("d", 60), strings.Repeat("e", 60), "s")
		}
		if err := Prepare(dir); err != nil {
			t.Fatal(err)
		}
		ln, err := Listen(dir, nil)
		if err != nil {
			t.Fatalf("long %v: %v", long, err)
		}
		fi, err := os.Stat(filepath.Join(dir, SocketName))
		if err != nil || fi.Mode().Perm() != 0o600 || fi.Mode().Type() != os.ModeSocket {
			t.Errorf("socket: %v %v, want a 0600 socket", fi.Mode(), err)
		}
		go func() {
			c, err := ln.Accept()
			if err == nil {
				_, _ = c.Write([]byte("welcome\n"))
				c.Close()
			}
		}()
		c, err := Dial(t.Context(), dir)
		if err != nil {
			t.Fatalf("long %v: %v", long, err)
		}
		line, _ := bufio.NewReader(c).ReadString('\n')
		c.Close()
		if line != "welcome\n" {
			t.Errorf("read %q", line)
		}
		ln.Close()
		if _, err := os.Lstat(filepath.Join(dir, SocketName)); !os.IsNotExist(err) {
			t.Errorf("Close left the socket: %v", err)
		}
	}
}

// asNobody prepares a test that runs this test binary as another user
// (nobody, with setpriv, as root; it skips otherwise) and runs in
// parallel: it returns setpriv's path, a directory open for nobody to
// read, removed at the end, and the copy of this binary in it, named name,
// that nobody can run.
func asNobody(t *testing.T, name string) (setpriv, base, exe string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a process as another user (setpriv)")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Fatal("setpriv (util-linux) is needed to run a process as another user")
	}
	t.Parallel()
	base, err = os.MkdirTemp("", "session-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	exe = filepath.Join(base, name)
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return setpriv, base, exe
}

// TestAnotherUserIsRefused: a process of another user that reaches the
// socket (here its directory and the socket are opened up on purpose, as a
// careless chmod would) is disconnected without a word; the listener is
// told. As root, the probe runs as nobody (setpriv).
func TestAnotherUserIsRefused(t *testing.T) {
	setpriv, base, probe := asNobody(t, "probe")
	dir := filepath.Join(base, "s")
	if err := Prepare(dir); err != nil {
		t.Fatal(err)
	}
	refused := make(chan error, 4)
	ln, err := Listen(dir, func(err error) { refused <- err })
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("welcome\n"))
			accepted <- c
		}
	}()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, SocketName), 0o666); err != nil {
		t.Fatal(err)
	}
	run := func(asNobody bool) string {
		args := []string{probe, "-test.run=^$"}
		name := probe
		if asNobody {
			name, args = setpriv, append([]string{"--reuid=65534", "--regid=65534", "--clear-groups"}, args...)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Env = append(os.Environ(), "SESSION_PROBE="+filepath.Join(dir, SocketName))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("probe: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if got := run(true); got != "closed" {
		t.Errorf("another user's connection got %q, want it closed without an answer", got)
	}
	select {
	case err := <-refused:
		if !strings.Contains(err.Error(), "user 65534") {
			t.Errorf("refusal: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Error("the listener was not told of the refused connection")
	}
	select {
	case c := <-accepted:
		c.Close()
		t.Error("another user's connection was accepted")
	default:
	}
	// The control: this user's probe is answered.
	if got := run(false); got != "answered: welcome" {
		t.Errorf("this user's probe got %q", got)
	}
}
