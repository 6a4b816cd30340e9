//go:build linux

package session

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/mcpcode/mcpcode/internal/fileowner"
)

// Supported says whether sessions work on this system.
const Supported = true

// fileID is the device and inode of a file.
func fileID(fi os.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprintf("%d:%d", st.Dev, st.Ino)
	}
	return "?"
}

func ownedByMe(fi os.FileInfo) error {
	uid, ok := fileowner.Of(fi)
	if !ok {
		return errors.New("cannot read its owner")
	}
	if int(uid) != os.Geteuid() {
		return fmt.Errorf("owned by user %d, not by this user (%d)", uid, os.Geteuid())
	}
	return nil
}

// socketPath returns a path for the socket in dir that fits a socket
// address (108 bytes): the path itself, or, when it is longer, the path
// through an open descriptor of dir (/proc/self/fd/N/sock), which the
// caller closes with done once bound or connected.
func socketPath(dir string) (path string, done func(), err error) {
	path = filepath.Join(dir, SocketName)
	if len(path) < 100 {
		return path, func() {}, nil
	}
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return "", nil, err
	}
	return "/proc/self/fd/" + strconv.Itoa(fd) + "/" + SocketName, func() { syscall.Close(fd) }, nil
}

// Listen listens on the session socket in dir (Prepare it first),
// replacing a socket left by a session that ended without removing it (the
// caller holds the session lock, so none is running). The socket is 0600.
// Connections from another user are closed as they are accepted; onRefused,
// when not nil, is told of each.
func Listen(dir string, onRefused func(error)) (net.Listener, error) {
	if err := CheckDir(dir); err != nil {
		return nil, err
	}
	path, done, err := socketPath(dir)
	if err != nil {
		return nil, err
	}
	defer done()
	if err := os.Remove(filepath.Join(dir, SocketName)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	// 0600 (the directory, 0700, already keeps others out meanwhile).
	if err := os.Chmod(filepath.Join(dir, SocketName), 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false) // the path may be a /proc one: removed by Close below
	return &sameUserListener{Listener: ln, path: filepath.Join(dir, SocketName), onRefused: onRefused}, nil
}

// sameUserListener accepts only connections of this process's user.
type sameUserListener struct {
	net.Listener
	path      string
	onRefused func(error)
}

func (l *sameUserListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if err := checkPeer(c); err != nil {
			c.Close()
			if l.onRefused != nil {
				l.onRefused(err)
			}
			continue
		}
		return c, nil
	}
}

// Close removes the socket and stops listening, in that order: whoever
// waits for Accept to fail (the session, before it returns) finds the
// socket gone.
func (l *sameUserListener) Close() error {
	_ = os.Remove(l.path)
	return l.Listener.Close()
}

// Dial connects to the session socket in dir, after checking the
// directory, and checks that the process listening is of this user.
func Dial(ctx context.Context, dir string) (net.Conn, error) {
	if err := CheckDir(dir); err != nil {
		return nil, err
	}
	path, done, err := socketPath(dir)
	if err != nil {
		return nil, err
	}
	defer done()
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, err
	}
	if err := checkPeer(c); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// checkPeer checks that the other end of c is a process of this user.
func checkPeer(c net.Conn) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return errors.New("not a unix socket")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	var cred *syscall.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return err
	}
	if credErr != nil {
		return fmt.Errorf("reading the peer's credentials: %w", credErr)
	}
	if int(cred.Uid) != os.Geteuid() {
		return fmt.Errorf("refused a connection of user %d (process %d): a session serves only its own user (%d)", cred.Uid, cred.Pid, os.Geteuid())
	}
	return nil
}
