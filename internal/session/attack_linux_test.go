//go:build linux

package session

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// plantSocket is another user's fake session (SESSION_PLANT=path): it
// listens on path, open to all, says "listening", greets the one
// connection it gets with a forged answer and says how many bytes the
// other end sent before it closed.
func plantSocket(path string) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		fmt.Println("listen:", err)
		return
	}
	_ = os.Chmod(path, 0o777)
	fmt.Println("listening")
	c, err := ln.Accept()
	if err != nil {
		fmt.Println("accept:", err)
		return
	}
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	_, _ = c.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"forged"}]}}` + "\n"))
	n, _ := io.Copy(io.Discard, c)
	fmt.Printf("read %d bytes\n", n)
}

// TestSocketPlantedByAnotherUserIsRefused: another user's process
// listens on a socket that the session directory's "sock" leads to (here a
// symbolic link, as where the path resolves to another user's socket
// after a race on a directory others may write, a shared .mcpcode/). Dial
// refuses it by its user (SO_PEERCRED) and sends it nothing: not a byte of
// a run reaches the fake session, which could forge tool results or ask
// the run's person for a password. As root, the fake runs as nobody.
func TestSocketPlantedByAnotherUserIsRefused(t *testing.T) {
	setpriv, base, fake := asNobody(t, "fake")
	attacker := filepath.Join(base, "attacker")
	if err := os.Mkdir(attacker, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(attacker, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(attacker, "sock")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", fake, "-test.run=^$")
	cmd.Env = append(os.Environ(), "SESSION_PLANT="+planted)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	out := bufio.NewReader(stdout)
	if line, _ := out.ReadString('\n'); line != "listening\n" {
		t.Fatalf("the fake session: %q", line)
	}

	dir := filepath.Join(base, "ws", ".mcpcode", "session")
	if err := Prepare(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(planted, filepath.Join(dir, SocketName)); err != nil {
		t.Fatal(err)
	}
	c, err := Dial(ctx, dir)
	if err == nil {
		_, _ = c.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}` + "\n"))
		c.Close()
		t.Error("Dial connected to another user's socket")
	} else if !strings.Contains(err.Error(), "user 65534") {
		t.Errorf("Dial: %v, want a refusal naming the other user", err)
	}
	rest, _ := io.ReadAll(out)
	if got := strings.TrimSpace(string(rest)); got != "read 0 bytes" {
		t.Errorf("the fake session says %q, want that it was sent nothing", got)
	}
}
