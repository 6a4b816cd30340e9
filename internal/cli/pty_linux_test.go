package cli

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/ptytest"
)

// runAtPTY runs the binary in ws with a pseudo-terminal as its stdin and
// stderr (stdout is captured apart), as a person would: answer gives the
// keys typed at each prompt (the line of the terminal ending in ": ", a
// prompt wider than the terminal joined across the form's gutter), ""
// for none.
func runAtPTY(t *testing.T, ws string, answer func(prompt string) string, args ...string) (stdout, screen string, err error) {
	t.Helper()
	master, slave := ptytest.Open(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = ws
	var out bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, &out, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	var mu sync.Mutex
	var shown strings.Builder
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		var pending string
		for {
			n, rerr := master.Read(buf)
			if n > 0 {
				mu.Lock()
				shown.Write(buf[:n])
				mu.Unlock()
				pending += string(buf[:n])
				for {
					i := strings.Index(pending, ": ")
					if i < 0 {
						break
					}
					prompt := strings.ReplaceAll(strings.ReplaceAll(pending[:i], "\r\n"+formGutter, ""), "\n"+formGutter, "")
					pending = pending[i+2:]
					if keys := answer(prompt[strings.LastIndex(prompt, "\n")+1:]); keys != "" {
						master.Write([]byte(keys))
					}
				}
			}
			if rerr != nil {
				return
			}
		}
	}()
	err = cmd.Wait()
	master.Close()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if ctx.Err() != nil {
		err = fmt.Errorf("did not finish: %w", ctx.Err())
	}
	return out.String(), shown.String(), err
}
