//go:build unix

package generator

import (
	"bytes"
	"errors"
	"os"
	"path"
	"sync"

	"golang.org/x/sys/unix"
)

// read reads the file rel of d (its base name, through d's descriptor: no
// path walk) and compares it with want. A symlink, a directory or a device
// is reported as not regular, and never opened: O_NOFOLLOW, and the type
// checked first.
func (d *targetDir) read(_ *os.Root, rel string, want []byte) (exists, regular, same bool, err error) {
	name := path.Base(rel)
	var st unix.Stat_t
	if err := retryEINTR(func() error { return unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return false, false, false, nil
		}
		return false, false, false, &os.PathError{Op: "lstat", Path: name, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return true, false, false, nil
	}
	if st.Size != int64(len(want)) {
		return true, true, false, nil
	}
	var fd int
	err = retryEINTR(func() (err error) {
		fd, err = unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		return err
	})
	switch {
	case errors.Is(err, unix.ENOENT):
		return false, false, false, nil
	case errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EMLINK): // replaced by a symlink meanwhile
		return true, false, false, nil
	case err != nil:
		return false, false, false, &os.PathError{Op: "open", Path: name, Err: err}
	}
	defer unix.Close(fd)
	if err := unix.Fstat(fd, &st); err != nil {
		return false, false, false, &os.PathError{Op: "fstat", Path: name, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return true, false, false, nil
	}
	// One more byte than wanted: a file that grew meanwhile differs. The
	// buffers are reused: a rerun over 10,000 files reads 44 MB.
	bp := readBuffers.Get().(*[]byte)
	defer readBuffers.Put(bp)
	if cap(*bp) < len(want)+1 {
		*bp = make([]byte, len(want)+1+len(want)/2)
	}
	buf := (*bp)[:len(want)+1]
	n := 0
	for n < len(buf) {
		var m int
		err := retryEINTR(func() (err error) {
			m, err = unix.Read(fd, buf[n:])
			return err
		})
		if err != nil {
			return false, false, false, &os.PathError{Op: "read", Path: name, Err: err}
		}
		if m == 0 {
			break
		}
		n += m
	}
	return true, true, bytes.Equal(buf[:n], want), nil
}

// readBuffers hold the buffers read reads files into.
var readBuffers = sync.Pool{New: func() any { return new([]byte) }}

// createStaged creates the new file name (one path element) in the
// staging directory dir and writes data: no temp file, no fsync (the
// staging directory is synced whole).
func createStaged(dir *stagingDir, name string, data []byte) error {
	if dir.fd < 0 || path.Base(name) != name {
		return dir.root.WriteFile(name, data, 0o644)
	}
	var fd int
	err := retryEINTR(func() (err error) {
		fd, err = unix.Openat(dir.fd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
		return err
	})
	if err != nil {
		return &os.PathError{Op: "open", Path: name, Err: err}
	}
	for len(data) > 0 {
		var n int
		err := retryEINTR(func() (err error) {
			n, err = unix.Write(fd, data)
			return err
		})
		if err != nil {
			unix.Close(fd)
			return &os.PathError{Op: "write", Path: name, Err: err}
		}
		data = data[n:]
	}
	if err := unix.Close(fd); err != nil {
		return &os.PathError{Op: "close", Path: name, Err: err}
	}
	return nil
}

// openStagingDir opens the staging root's directory for createStaged.
func openStagingDir(sr *os.Root) (*stagingDir, error) {
	f, err := sr.Open(".")
	if err != nil {
		return nil, err
	}
	return &stagingDir{root: sr, f: f, fd: int(f.Fd())}, nil
}

func retryEINTR(fn func() error) error {
	for {
		if err := fn(); err != unix.EINTR {
			return err
		}
	}
}
