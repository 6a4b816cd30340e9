package filelock

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestMain lets the test binary hold a lock in another process: with
// FILELOCK_HOLD=path it locks path, prints "locked", and holds the lock
// until its stdin closes.
func TestMain(m *testing.M) {
	if path := os.Getenv("FILELOCK_HOLD"); path != "" {
		release, err := LockPath(path, 0o600, nil)
		if err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(1)
		}
		os.Stdout.WriteString("locked\n")
		var b [1]byte
		_, _ = os.Stdin.Read(b[:])
		release()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestLockWaitsForAnotherProcess: while another process holds the lock,
// LockPath tells onWait and waits; it returns once the other releases it.
func TestLockWaitsForAnotherProcess(t *testing.T) {
	if !Supported {
		t.Skip("no file locks on this system")
	}
	path := filepath.Join(t.TempDir(), "lock")
	holder := exec.Command(os.Args[0], "-test.run=^$")
	holder.Env = append(os.Environ(), "FILELOCK_HOLD="+path)
	stdin, err := holder.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer holder.Wait()
	var b [7]byte
	if _, err := out.Read(b[:]); err != nil || string(b[:6]) != "locked" {
		t.Fatalf("the holder did not lock: %q %v", b, err)
	}
	waited := make(chan struct{})
	locked := make(chan func(), 1)
	go func() {
		release, err := LockPath(path, 0o600, func() { close(waited) })
		if err != nil {
			t.Error(err)
		}
		locked <- release
	}()
	select {
	case <-waited:
	case <-time.After(30 * time.Second):
		t.Fatal("LockPath never said it waits, while another process holds the lock")
	}
	select {
	case <-locked:
		t.Fatal("LockPath returned while another process holds the lock")
	default:
	}
	stdin.Close() // the holder releases and exits
	select {
	case release := <-locked:
		release()
	case <-time.After(30 * time.Second):
		t.Fatal("LockPath did not return after the holder released the lock")
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("lock file: %v %v, want mode 0600", fi, err)
	}
}
