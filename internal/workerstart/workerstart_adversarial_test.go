//go:build linux

package workerstart

import (
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestAdversarialWorkerInheritsOnlyStdio: a worker process must hold no
// descriptor of the parent but its three pipes. Go opens its own files
// close-on-exec, but a descriptor mcpcode itself inherited without
// close-on-exec (an agent host's socket, a shell's `3<secret`) is passed
// on by os.StartProcess to every worker, where a program that escapes goja
// could read it. Here fd 57 of the parent is such a descriptor, open on a
// secret file, and the "worker" is cat reading /proc/self/fd/57.

func TestAdversarialWorkerInheritsOnlyStdio(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("HOST-SECRET-TOKEN"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(secret)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const inherited = 57
	// As mcpcode's own parent would have handed it over: no O_CLOEXEC.
	if err := syscall.Dup3(int(f.Fd()), inherited, 0); err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(inherited)

	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Fatal("cat, the stand-in worker of this test, is not installed")
	}
	p, err := Start(cat, []string{"cat", "/proc/self/fd/57"}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	p.Stdin.Close()
	out, _ := io.ReadAll(p.Stdout)
	errOut, _ := io.ReadAll(p.Stderr)
	p.Stdout.Close()
	p.Stderr.Close()
	_, _ = p.Wait()
	if strings.Contains(string(out), "HOST-SECRET-TOKEN") {
		t.Errorf("the worker process inherited the parent's fd %d and read %q through it; a worker should hold only fds 0, 1 and 2 (stderr: %q)", inherited, out, errOut)
	}
}

// TestAdversarialEarlyWorkerGuessMatchesFlags: wantsEarlyWorker must not
// start a worker for a run the run command will make in-process
// (--isolation none) or will not make at all (-h). It stops at the first
// "--", but Go's flag package takes "--" as the value of a string flag
// that precedes it (--record, --dir, --input, --replay...), so the flags
// after it are still flags. The test checks each command line against a
// flag set parsed as `mcpcode run` parses it.

func TestAdversarialEarlyWorkerGuessMatchesFlags(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--record", "--", "--isolation", "none", "p.ts"},
		{"run", "--dir", "--", "-isolation=none", "p.ts"},
		{"run", "-help=true", "p.ts"},
	} {
		fs := flag.NewFlagSet("run", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		isolation := fs.String("isolation", "worker", "")
		fs.String("record", "", "")
		fs.String("dir", "", "")
		err := fs.Parse(args[1:])
		runsInWorker := err == nil && *isolation == "worker"
		if got := wantsEarlyWorker(args); got != runsInWorker {
			t.Errorf("%q: wantsEarlyWorker = %v, but the run command parses isolation %q (parse error %v): a worker process is started for a run that never uses one",
				args, got, *isolation, err)
		}
	}
}
