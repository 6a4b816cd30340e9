//go:build linux

package workerstart

import (
	"errors"
	"os"
	"strconv"
	"syscall"
)

// A one-shot `mcpcode run` starts a process of this large binary, which
// takes tens of milliseconds before main, and a worker process, as long
// again. The broker keeps a warm runner for the next run instead: a
// `mcpcode __runner` past its start-up, with its worker process started
// and warmed up. A run that finds the broker hands its whole job to that
// runner from this package's init, long before the rest of this binary
// initializes: its arguments, environment, working directory and
// standard streams; the runner runs the command exactly as this process
// would have (cli.Main), and this process exits with its status. The
// broker is `mcpcode __broker <socket>`, started in the background by a run
// that found none; it ends after BrokerIdle without a run, or when its
// binary is deleted or replaced.
//
// A runner serves one run and exits, so no state passes between runs. It
// is what this process would have been: the broker hands runners only to
// clients of its own user (SO_PEERCRED, in a directory only that user can
// enter) and of an identical execution context (fingerprint: the binary,
// user and groups, capabilities, no_new_privs, seccomp, namespaces,
// cgroup, CPU affinity, resource limits, umask, security label), and
// runners start with an empty environment and get the run's whole
// environment from it. What would still differ is left on the local path:
// a terminal (interactive prompts, job control), and the variables the Go
// runtime reads as a process starts (runnerUnsafeEnv).
//
// The protocol, on the broker's SOCK_STREAM socket:
//   - the client writes brokerHello and its fingerprint (4-byte
//     little-endian length, then the bytes);
//   - the broker answers 'n' (no runner: the client runs locally), or passes
//     the connection to a runner and answers 'y';
//   - the client writes its request (requestMagic, a 4-byte length, then
//     the arguments and the environment, each a 4-byte count of 4-byte
//     length-prefixed strings) with its working directory, stdin, stdout and
//     stderr attached (SCM_RIGHTS, with the first byte);
//   - while the run lasts the client may write 'g' and a signal number
//     (a signal it received, for the runner to take);
//   - the runner writes 'x' and its exit code (4 bytes) as it ends; if it
//     ends without (a signal), the broker writes 's' and its wait status.

// BrokerArg is the hidden command that runs the broker.
const BrokerArg = "__broker"

// RunnerArg is the hidden command of a warm runner the broker starts.
const RunnerArg = "__runner"

// BrokerEnv turns the broker off when set to "off" or "0": a run then
// neither asks a broker nor starts one.
const BrokerEnv = "MCPCODE_WARM"

const brokerHello = "mcpcode-broker/1\n"

const requestMagic = "mcpcode-run/2\n"

// runBegan is what a runner sends its client once it has taken the run,
// before it runs anything: a client whose runner ends without it runs the
// command itself. The client answers runGo, and the runner runs it; or,
// when a signal came while it waited, runStop, and runs it itself (the
// runner then runs nothing): so a run never runs twice, and a runner that
// is stopped or stuck cannot hold a client that is told to end.
const (
	runBegan = 'b'
	runGo    = 'k'
	runStop  = 'n'
)

// maxFingerprint bounds the fingerprint a broker reads from a client.
const maxFingerprint = 64 << 10

// maxRequest bounds the request (arguments and environment) a runner reads.
const maxRequest = 8 << 20

// brokerEnabled says whether runs use the worker broker.
func brokerEnabled() bool {
	v := os.Getenv(BrokerEnv)
	return v != "off" && v != "0"
}

// brokerSocket is the socket of the broker for this process's fingerprint:
// $XDG_RUNTIME_DIR/mcpcode/ when that is set (a per-user directory that
// ends with the user's session), else mcpcode-<uid>/ in the system's
// temporary directory; "" when it cannot be named.
func brokerSocket(fp []byte) string {
	dir := os.Getenv("XDG_RUNTIME_DIR")
	if dir != "" && dir[0] == '/' {
		dir += "/mcpcode"
	} else {
		dir = os.TempDir() + "/mcpcode-" + strconv.Itoa(os.Getuid())
	}
	path := dir + "/" + socketName(fp)
	if len(path) >= 108 { // sun_path
		return ""
	}
	return path
}

// socketName is the file name of the broker's socket for fingerprint fp.
func socketName(fp []byte) string { return "broker-" + strconv.FormatUint(fnv64(fp), 16) + ".sock" }

// dirOf returns the directory part of a socket path brokerSocket made.
func dirOf(path string) string {
	for i := len(path) - 1; i > 0; i-- {
		if path[i] == '/' {
			return path[:i]
		}
	}
	return "/"
}

// checkPrivateDir fails unless dir is a directory (not a symbolic link)
// owned by this user that no other user can enter or write.
func checkPrivateDir(dir string) error {
	var st syscall.Stat_t
	if err := syscall.Lstat(dir, &st); err != nil {
		return err
	}
	switch {
	case st.Mode&syscall.S_IFMT != syscall.S_IFDIR:
		return errors.New(dir + " is not a directory")
	case int(st.Uid) != os.Getuid():
		return errors.New(dir + " belongs to another user")
	case st.Mode&0o077 != 0:
		return errors.New(dir + " is open to other users (want mode 0700)")
	}
	return nil
}

func fnv64(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// fingerprint describes what a process started by this one would inherit
// besides its pipes and environment: the binary, the credentials, the
// sandboxing and the limits, read from /proc/self.
func fingerprint() ([]byte, error) { return fingerprintOf("/proc/self", 0) }

// fingerprintOf is the fingerprint of the process whose /proc directory is
// proc and whose pid is pid (0: this process). Two processes with the same
// fingerprint start equal children. Each side of the broker's socket
// compares its own with the other side's, read from /proc, so neither has
// to believe what the other says of itself. It fails when a part cannot be
// read (another user's process, a process gone), and then no broker is
// used.
func fingerprintOf(proc string, pid int) ([]byte, error) {
	fp := make([]byte, 0, 4096)
	for _, f := range []string{"exe", "root"} {
		var st syscall.Stat_t
		if err := syscall.Stat(proc+"/"+f, &st); err != nil {
			return nil, err
		}
		fp = append(fp, f...)
		for _, n := range []uint64{st.Dev, st.Ino, uint64(st.Size), uint64(st.Mtim.Sec), uint64(st.Mtim.Nsec)} {
			fp = strconv.AppendUint(append(fp, ' '), n, 10)
		}
		fp = append(fp, '\n')
	}
	status, err := readSmall(proc + "/status")
	if err != nil {
		return nil, err
	}
	// The lines of status that a child inherits; the others (name, pids,
	// memory, counters) are not about what it may do.
	for _, line := range lines(status) {
		for _, key := range []string{"Umask:", "Uid:", "Gid:", "Groups:", "NoNewPrivs:", "Seccomp:", "Seccomp_filters:",
			"TracerPid:", "SigIgn:", "CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:", "Speculation_Store_Bypass:",
			"Cpus_allowed_list:", "Mems_allowed_list:"} {
			if len(line) > len(key) && string(line[:len(key)]) == key {
				fp = append(append(fp, line...), '\n')
			}
		}
	}
	// (personality is not read: another process's needs ptrace-attach
	// rights, which Yama gives only to ancestors; sandboxed() requires
	// the default on each side.)
	for _, f := range []string{"cgroup", "limits", "oom_score_adj", "coredump_filter", "loginuid", "sessionid", "attr/current"} {
		b, err := readSmall(proc + "/" + f)
		if err != nil && f != "attr/current" { // no security module: no label
			return nil, err
		}
		fp = append(append(append(fp, f...), '\n'), b...)
	}
	for _, ns := range []string{"cgroup", "ipc", "mnt", "net", "pid", "pid_for_children", "time", "user", "uts"} {
		buf := make([]byte, 64)
		n, err := syscall.Readlink(proc+"/ns/"+ns, buf)
		if errors.Is(err, syscall.ENOENT) {
			continue // a namespace this kernel does not have
		}
		if err != nil {
			return nil, err
		}
		fp = append(append(append(fp, "ns "...), buf[:n]...), '\n')
	}
	// Scheduling: nice, real-time priority and policy (fields 19, 40 and 41
	// of stat), and the I/O priority.
	stat, err := readSmall(proc + "/stat")
	if err != nil {
		return nil, err
	}
	fields := statFields(stat)
	if len(fields) < 41 {
		return nil, errors.New(proc + "/stat is too short")
	}
	fp = append(append(fp, "sched "...), fields[18]+" "+fields[39]+" "+fields[40]+"\n"...)
	const ioprioWhoProcess = 1
	prio, _, errno := syscall.Syscall(syscall.SYS_IOPRIO_GET, ioprioWhoProcess, uintptr(pid), 0)
	if errno != 0 {
		return nil, errno
	}
	return strconv.AppendUint(append(fp, "ioprio "...), uint64(prio), 10), nil
}

// statFields splits /proc/<pid>/stat into its fields, numbered from 1 as
// in proc(5) (fields[0] is the pid); the command name, which may hold
// spaces and parentheses, is one field.
func statFields(stat []byte) []string {
	open, close := -1, -1
	for i, c := range stat {
		if c == '(' && open < 0 {
			open = i
		}
		if c == ')' {
			close = i
		}
	}
	if open < 0 || close < open {
		return nil
	}
	fields := []string{string(stat[:open-1]), string(stat[open : close+1])}
	rest := stat[close+1:]
	for len(rest) > 0 {
		for len(rest) > 0 && (rest[0] == ' ' || rest[0] == '\n') {
			rest = rest[1:]
		}
		i := 0
		for i < len(rest) && rest[i] != ' ' && rest[i] != '\n' {
			i++
		}
		if i > 0 {
			fields = append(fields, string(rest[:i]))
		}
		rest = rest[i:]
	}
	return fields
}

// sandboxed says why this process must not use or be a broker: a
// sandbox whose rules /proc does not show, so that two processes in
// different ones look the same: a seccomp filter or no_new_privs (Landlock
// needs one of them, or CAP_SYS_ADMIN), CAP_SYS_ADMIN (with it, Landlock
// and seccomp need no no_new_privs), a tracer (a ptrace supervisor), a
// personality other than the default; and a controlling terminal, which a
// runner cannot have. "" when none applies.
func sandboxed() string {
	status, err := readSmall("/proc/self/status")
	if err != nil {
		return "cannot read /proc/self/status"
	}
	const capSysAdmin = 21
	for _, line := range lines(status) {
		switch {
		case hasPrefix(line, "NoNewPrivs:") && string(line) != "NoNewPrivs:\t0",
			hasPrefix(line, "Seccomp:") && string(line) != "Seccomp:\t0",
			hasPrefix(line, "TracerPid:") && string(line) != "TracerPid:\t0":
			return string(line)
		case hasPrefix(line, "CapEff:"):
			caps, err := strconv.ParseUint(string(line[len("CapEff:\t"):]), 16, 64)
			if err != nil || caps&(1<<capSysAdmin) != 0 {
				return "CAP_SYS_ADMIN"
			}
		}
	}
	if p, err := readSmall("/proc/self/personality"); err != nil || string(p) != "00000000\n" {
		return "a personality other than the default"
	}
	stat, err := readSmall("/proc/self/stat")
	if f := statFields(stat); err != nil || len(f) < 7 || f[6] != "0" {
		return "a controlling terminal"
	}
	return ""
}

func hasPrefix(b []byte, p string) bool { return len(b) >= len(p) && string(b[:len(p)]) == p }

// peerMatches says whether the process at the other end of the Unix socket
// fd is of this process's user, is not this process, and has the
// fingerprint self, read from its /proc directory. The process is the one
// that connected or listened (SO_PEERPIDFD, Linux 6.5), pinned by a pidfd
// while it is read: a pid taken from SO_PEERCRED may belong to another
// process by then, once the one that connected has exited.
func peerMatches(fd int, self []byte) bool {
	cred, err := syscall.GetsockoptUcred(fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	if err != nil || int(cred.Uid) != os.Getuid() {
		return false
	}
	const soPeerPidfd = 77
	pidfd, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, soPeerPidfd)
	if err != nil {
		return false // an older kernel: no broker
	}
	defer syscall.Close(pidfd)
	pid := pidOfPidfd(pidfd)
	if pid <= 0 || pid == os.Getpid() {
		return false // gone, or this very process
	}
	fp, err := fingerprintOf("/proc/"+strconv.Itoa(pid), pid)
	if err != nil || string(fp) != string(self) {
		return false
	}
	// Still the same process: its pid was not reused while it was read.
	return pidOfPidfd(pidfd) == pid
}

// pidOfPidfd is the pid of the process a pidfd refers to, from its
// fdinfo: -1 once it has exited, 0 when unknown.
func pidOfPidfd(pidfd int) int {
	info, err := readSmall("/proc/self/fdinfo/" + strconv.Itoa(pidfd))
	if err != nil {
		return 0
	}
	for _, line := range lines(info) {
		if hasPrefix(line, "Pid:") {
			v := string(line[len("Pid:"):])
			for len(v) > 0 && (v[0] == ' ' || v[0] == '\t') {
				v = v[1:]
			}
			pid, err := strconv.Atoi(v)
			if err != nil {
				return 0
			}
			return pid
		}
	}
	return 0
}

// readSmall reads a small file of /proc whole.
func readSmall(path string) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var out []byte
	buf := make([]byte, 4096)
	for len(out) < maxFingerprint {
		n, err := syscall.Read(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			break
		}
		out = append(out, buf[:n]...)
	}
	return out, nil
}

func lines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != '\n' {
			i++
		}
		out = append(out, b[:i])
		if i < len(b) {
			i++
		}
		b = b[i:]
	}
	return out
}

// setTimeout bounds each read and write on fd (0: none).
func setTimeout(fd int, seconds int64) {
	tv := syscall.Timeval{Sec: seconds}
	_ = syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)
	_ = syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv)
}

// peerIsMe says whether the process at the other end of a Unix socket is
// of this process's user.
func peerIsMe(fd int) bool {
	cred, err := syscall.GetsockoptUcred(fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	return err == nil && int(cred.Uid) == os.Getuid()
}

// writeAll writes b to the socket fd; a closed peer is an error, never
// a SIGPIPE.
func writeAll(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := syscall.SendmsgN(fd, b, nil, nil, syscall.MSG_NOSIGNAL)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

func readFull(fd int, b []byte) error {
	for len(b) > 0 {
		n, err := syscall.Read(fd, b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return errors.New("connection closed")
		}
		b = b[n:]
	}
	return nil
}

func putUint32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

func getUint32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// receivedFDs returns the descriptors passed in a control message.
func receivedFDs(oob []byte) []int {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, m := range msgs {
		if got, err := syscall.ParseUnixRights(&m); err == nil {
			fds = append(fds, got...)
		}
	}
	return fds
}
