package cli

import (
	"os"
	"syscall"
	"testing"
	"unsafe"

	"github.com/mcpcode/mcpcode/internal/ptytest"
)

// TestTerminalWidth: the form breaks its rows at the width the terminal
// has (TIOCGWINSZ), and a file that is not a terminal has none.
func TestTerminalWidth(t *testing.T) {
	t.Parallel()
	master, slave := ptytest.Open(t)
	for _, cols := range []uint16{132, 37} {
		ws := struct{ Row, Col, X, Y uint16 }{Row: 24, Col: cols}
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws))); e != 0 {
			t.Fatal(e)
		}
		if got := terminalWidth(slave); got != int(cols) {
			t.Errorf("terminalWidth = %d, want %d", got, cols)
		}
	}
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := terminalWidth(f); got != 0 {
		t.Errorf("terminalWidth(%s) = %d, want 0", os.DevNull, got)
	}
}
