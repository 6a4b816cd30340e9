//go:build linux

package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/app"
)

// leadDescription reads the demo Lead's Description (salesforce, a stdio
// demo server whose records live as long as its process).
const leadDescription = `import { callMCPTool } from "mcpcode:runtime";
const r: any = await callMCPTool("salesforce", "getRecord", { objectType: "Lead", recordId: "00Q5f000001abcXYZ" });
console.log("description:", r.structuredContent?.Description ?? r.Description);`

// setDescription changes it.
const setDescription = `import { callMCPTool } from "mcpcode:runtime";
await callMCPTool("salesforce", "updateRecord", { objectType: "Lead", recordId: "00Q5f000001abcXYZ", data: { Description: "set by run 1" } });
console.log("set");`

// sessionWorkspace is a workspace of the demo servers (stdio, this binary)
// with the two programs.
func sessionWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "mcp.json"), string(app.DemoConfig(binary)))
	writeFile(t, filepath.Join(ws, "get.ts"), leadDescription)
	writeFile(t, filepath.Join(ws, "set.ts"), setDescription)
	return ws
}

func runOK(t *testing.T, ws string, args ...string) runResult {
	t.Helper()
	res := runBinary(t, ws, 2*time.Minute, args...)
	if res.code != 0 {
		t.Fatalf("mcpcode %s: exit %d\n%s%s", strings.Join(args, " "), res.code, res.stdout, res.stderr)
	}
	return res
}

func sessionStatusJSON(t *testing.T, ws string) app.SessionStatus {
	t.Helper()
	var st app.SessionStatus
	res := runOK(t, ws, "session", "status", "--json")
	if err := json.Unmarshal([]byte(res.stdout), &st); err != nil {
		t.Fatalf("session status --json: %v\n%s", err, res.stdout)
	}
	return st
}

// TestRunLeavesNoProcess: nothing of a run outlives it: its worker and the
// stdio server it called are gone once it has exited (they would be left
// to the reaper otherwise).
func TestRunLeavesNoProcess(t *testing.T) {
	e2e(t)
	t.Parallel()
	ws := sessionWorkspace(t)
	r := startReaper(t, ws, "run", "get.ts")
	if left := r.left(); left != "none" {
		t.Errorf("processes outlived the run: %s", left)
	}
}

// TestSessionEndToEnd: a session started on purpose keeps the demo
// salesforce server running between runs: what run 1 changed, run 2 sees
// (the server keeps it in memory: no file), while a run that does not use
// the session starts a fresh server and does not. Its status names the
// server; an edit of the server's entry in mcp.json restarts it (its
// state is gone); another user cannot reach it; and once stopped, neither
// the session nor any server is left.
func TestSessionEndToEnd(t *testing.T) {
	e2e(t)
	t.Parallel()
	ws := sessionWorkspace(t)
	// salesforce under a shell that outlives it: only stopping its process
	// group, as the session's pool does when it stops, leaves nothing
	// behind.
	cfg := stubbornSalesforce(t, ws)
	r := startReaper(t, ws, "session", "start", "--idle", "0")
	runOK(t, ws, "run", "set.ts")
	if got := runOK(t, ws, "run", "get.ts").stdout; !strings.Contains(got, "description: set by run 1") {
		t.Errorf("run 2 through the session: %q, want what run 1 set", got)
	}
	if got := runOK(t, ws, "run", "--no-session", "get.ts").stdout; strings.Contains(got, "set by run 1") || !strings.Contains(got, "description:") {
		t.Errorf("a run without the session: %q, want a fresh server's description", got)
	}
	st := sessionStatusJSON(t, ws)
	if len(st.Servers) != 1 || st.Servers[0].Name != "salesforce" || !st.Servers[0].Connected || st.Servers[0].Pid == 0 {
		t.Errorf("status servers %+v, want salesforce running", st.Servers)
	}
	if !strings.Contains(runOK(t, ws, "session", "status").stdout, "salesforce") {
		t.Error("session status does not show the server")
	}
	serverPid := st.Servers[0].Pid
	// tools goes through the session too: the session now holds slack.
	if got := runOK(t, ws, "tools", "slack").stdout; !strings.Contains(got, "postMessage") {
		t.Errorf("tools slack through the session: %q", got)
	}
	if st := sessionStatusJSON(t, ws); len(st.Servers) != 2 || st.Servers[1].Name != "slack" || !st.Servers[1].Connected {
		t.Errorf("after tools slack, the session holds %+v, want salesforce and slack", st.Servers)
	}

	// Another user: with the workspace readable to all, nobody's status
	// finds no session it can use (the session directory is 0700).
	if os.Geteuid() == 0 {
		nobody := runAsNobody(t, ws, "session", "status")
		if nobody.code != 1 || !strings.Contains(nobody.stderr, "no session runs") {
			t.Errorf("another user's session status: exit %d\n%s%s", nobody.code, nobody.stdout, nobody.stderr)
		}
	}

	// mcp.json edited: salesforce's entry changes, so it is restarted.
	cfg["mcpServers"]["salesforce"]["env"] = map[string]string{"EDITED": "1"}
	edited, _ := json.Marshal(cfg)
	writeFile(t, filepath.Join(ws, "mcp.json"), string(edited))
	if got := runOK(t, ws, "run", "get.ts").stdout; strings.Contains(got, "set by run 1") {
		t.Errorf("after salesforce's entry changed: %q, want a restarted server", got)
	}
	st = sessionStatusJSON(t, ws)
	if len(st.Restarted) != 1 || st.Restarted[0] != "salesforce" || len(st.Servers) != 2 || st.Servers[0].Pid == serverPid || !st.Servers[1].Connected {
		t.Errorf("status after the edit: restarted %v, servers %+v", st.Restarted, st.Servers)
	}

	if res := runOK(t, ws, "session", "stop"); !strings.Contains(res.stdout, "stopped") {
		t.Errorf("session stop said %q", res.stdout)
	}
	if left := r.left(); left != "none" {
		t.Errorf("left after session stop: %s", left)
	}
	if res := runBinary(t, ws, time.Minute, "session", "status"); res.code != 1 {
		t.Errorf("status after stop: exit %d", res.code)
	}
}

// runAsNobody runs mcpcode as user nobody (setpriv), from a copy of the
// binary nobody may run, with the workspace readable to all.
func runAsNobody(t *testing.T, ws string, args ...string) runResult {
	t.Helper()
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Fatal("setpriv (util-linux) is needed to run mcpcode as another user")
	}
	dir, err := os.MkdirTemp("", "nobody")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	data, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "mcpcode")
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	for p := ws; p != "/" && p != "."; p = filepath.Dir(p) {
		_ = os.Chmod(p, 0o755)
	}
	_ = os.Chmod(dir, 0o755)
	_ = os.Chmod(filepath.Join(ws, "mcp.json"), 0o644)
	_ = os.Chmod(filepath.Join(ws, ".mcpcode"), 0o755)
	cmd := exec.Command(setpriv, append([]string{"--reuid=65534", "--regid=65534", "--clear-groups", exe}, args...)...)
	cmd.Dir = ws
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return runResult{out.String(), errb.String(), code}
}

// TestSessionStopsWhenIdleOrReplaced: a session stops by itself after its
// idle time, and when its binary is replaced (the next run warns, does not
// use it, and works without it); neither leaves a process behind.
func TestSessionStopsWhenIdleOrReplaced(t *testing.T) {
	e2e(t)
	t.Parallel()
	t.Run("idle", func(t *testing.T) {
		t.Parallel()
		ws := sessionWorkspace(t)
		r := startReaper(t, ws, "session", "start", "--idle", "1s")
		pid := sessionPid(t, ws) // from its log: it may have stopped by the time a status could ask
		runOK(t, ws, "run", "get.ts")
		waitGone(t, pid)
		if left := r.left(); left != "none" {
			t.Errorf("left after the idle stop: %s", left)
		}
	})
	t.Run("replaced", func(t *testing.T) {
		t.Parallel()
		ws := sessionWorkspace(t)
		// The session runs a copy of the binary, replaced later.
		exe := filepath.Join(t.TempDir(), "mcpcode")
		data, err := os.ReadFile(binary)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(exe, data, 0o755); err != nil {
			t.Fatal(err)
		}
		r := startReaperExe(t, ws, exe, "session", "start", "--idle", "0")
		run := func() runResult {
			cmd := exec.Command(exe, "run", "get.ts")
			cmd.Dir = ws
			var out, errb strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Run(); err != nil {
				t.Fatalf("run: %v\n%s", err, errb.String())
			}
			return runResult{out.String(), errb.String(), 0}
		}
		if res := run(); res.stderr != "" {
			t.Fatalf("a run through the session warned: %s", res.stderr)
		}
		pid := sessionStatusJSON(t, ws).Pid
		// A new build at the same path.
		if err := os.WriteFile(exe+".new", data, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(exe+".new", exe); err != nil {
			t.Fatal(err)
		}
		res := run()
		if !strings.Contains(res.stdout, "description:") || !strings.Contains(res.stderr, "binary was replaced") {
			t.Errorf("a run after the binary was replaced: stdout %q stderr %q, want it run without the session, with a warning", res.stdout, res.stderr)
		}
		waitGone(t, pid)
		if left := r.left(); left != "none" {
			t.Errorf("left after the binary was replaced: %s", left)
		}
	})
}

// sessionPid reads the pid of the workspace's session from its log.
func sessionPid(t *testing.T, ws string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(ws, ".mcpcode", "logs", "session.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields(string(data)) {
		if v, ok := strings.CutPrefix(f, "pid="); ok {
			if pid, err := strconv.Atoi(v); err == nil {
				return pid
			}
		}
	}
	t.Fatalf("no pid in the session's log:\n%s", data)
	return 0
}

// waitGone waits until process pid has ended (a guard bounds the wait).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if err := syscall.Kill(pid, 0); err != nil {
			return
		}
		stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d did not end", pid)
		}
	}
}
