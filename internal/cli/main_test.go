package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/tsc"
	"github.com/mcpcode/mcpcode/runtime/worker"
)

// binary is the mcpcode binary of the end-to-end tests: this test binary,
// which acts as mcpcode when its first argument is not a test flag (so no
// separate build is needed, and the worker and demo-server processes it
// starts are the code under test).
var binary string

// reaperEnv makes the test binary a reaper (reaperMain) instead of mcpcode.
const reaperEnv = "MCPCODE_TEST_REAPER"

func TestMain(m *testing.M) {
	if os.Getenv(reaperEnv) != "" {
		os.Exit(reaperMain(os.Args[1:]))
	}
	if len(os.Args) == 3 && os.Args[1] == hangServerArg {
		serveHangServer(os.Args[2])
		os.Exit(0)
	}
	if len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-test.") {
		os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "finding the test binary:", err)
		os.Exit(1)
	}
	binary = exe
	os.Exit(m.Run())
}

// testWorkerCommand starts this test binary as a worker process.
func testWorkerCommand() *exec.Cmd { return exec.Command(binary, worker.Arg) }

// e2e skips an end-to-end test (real binary, real servers, npm packages) in
// the fast tier, `go test -short`.
func e2e(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test: runs in `make test`, not with -short")
	}
}

// moduleRoot is the directory holding go.mod.
func moduleRoot(t testing.TB) string {
	t.Helper()
	root, err := tsc.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// npmPackageDir returns the directory of a pinned npm package installed by
// `make test`, failing the test loudly when it is missing.
func npmPackageDir(t testing.TB, pkg string) string {
	t.Helper()
	dir := filepath.Join(moduleRoot(t), "testdata", "npm", "node_modules", filepath.FromSlash(pkg))
	if _, err := os.Stat(filepath.Join(dir, "package.json")); err != nil {
		t.Fatalf("npm package %s is not installed: run `make test` (it runs npm ci in testdata/npm): %v", pkg, err)
	}
	return dir
}

// runResult is what one run of the binary did.
type runResult struct {
	stdout, stderr string
	code           int
}

// runBinary runs the real binary in dir. guard bounds a hang so that it
// fails the test instead of hanging CI; it is not a speed assertion.
func runBinary(t *testing.T, dir string, guard time.Duration, args ...string) runResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("mcpcode %s did not finish within %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), guard, stdout.String(), stderr.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return runResult{stdout.String(), stderr.String(), code}
}

// startNodeServer starts a server-everything in an HTTP mode on a free
// loopback port and waits until it accepts connections.
func startNodeServer(t *testing.T, mode string) string {
	t.Helper()
	script := filepath.Join(npmPackageDir(t, "@modelcontextprotocol/server-everything"), "dist", "index.js")
	port := freePort(t)
	cmd := exec.Command("node", script, mode)
	cmd.Env = append(os.Environ(), "PORT="+port)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting server-everything %s: %v", mode, err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	addr := "127.0.0.1:" + port
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("server-everything %s never listened on %s:\n%s", mode, addr, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// approveSkill approves a pending proposal as a person does: it reads the
// review card (skills show --json), then approves with the hash the card
// printed.
func approveSkill(t *testing.T, ws, name string) {
	t.Helper()
	res := runBinary(t, ws, time.Minute, "skills", "show", "--json", name)
	var card struct {
		SHA256 string `json:"sha256"`
	}
	if res.code != 0 || json.Unmarshal([]byte(res.stdout), &card) != nil || card.SHA256 == "" {
		t.Fatalf("skills show %s: exit %d\n%s%s", name, res.code, res.stdout, res.stderr)
	}
	if res := runBinary(t, ws, time.Minute, "skills", "approve", name, "--sha256", card.SHA256); res.code != 0 {
		t.Fatalf("approve %s: exit %d\n%s", name, res.code, res.stderr)
	}
}
