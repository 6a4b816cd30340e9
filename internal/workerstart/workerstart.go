// Package workerstart starts worker processes: this binary re-executed as
// `mcpcode __worker` (runtime/worker.Serve), with an empty environment, in
// its own process group, killed by the kernel if the parent dies.
//
// For `mcpcode run`, which needs exactly one worker, it starts that worker
// while the rest of the program is still initializing: the worker's start
// (the binary's own start-up, tens of milliseconds) then overlaps with the
// parent's instead of following it. Go initializes a package as soon as its
// imports are, in the order of their import paths, so a package that
// imports only a few standard packages runs its init early, long before the
// packages of goja, esbuild and the MCP SDK; that is why this package
// imports nothing but os, errors, sync and syscall, and must stay so (not
// even os/exec, which Go initializes late). The order is only a matter of
// speed: the process started here is the same as one started later.
package workerstart

import (
	"errors"
	"os"
	"sync"
)

// Arg is the hidden command a worker process runs.
const Arg = "__worker"

// Executable is this binary, which a worker process runs.
func Executable() string {
	exe, err := os.Executable()
	if err != nil {
		return os.Args[0]
	}
	return exe
}

// Process is a started worker process and the parent's ends of its pipes.
type Process struct {
	// Pid is the worker's process ID (also its process group's).
	Pid int
	// Stdin is written to the worker's standard input.
	Stdin *os.File
	// Stdout and Stderr read the worker's standard output and error. They
	// are plain pipes, which nothing closes when the process ends: what the
	// worker wrote last can be read after it exited.
	Stdout, Stderr *os.File

	proc *os.Process
}

// Wait waits until the worker process has ended and says how.
func (p *Process) Wait() (*os.ProcessState, error) { return p.proc.Wait() }

// KillGroup sends the worker's process group SIGKILL without waiting.
func (p *Process) KillGroup() {
	killGroup(p.Pid)
	_ = p.proc.Kill()
}

// Start starts a worker process: path with argv (argv[0] included) in dir
// ("" for this process's), with env, or an empty environment when env is
// nil (it should hold nothing secret), in its own process group, killed
// by the kernel if the parent dies (Linux), its standard streams pipes,
// and no other descriptor of this process: descriptors this process
// inherited open across exec (an agent host's socket, a shell's 3<file)
// are first made close-on-exec, for every process it starts from then on.
func Start(path string, argv, env []string, dir string) (*Process, error) {
	if env == nil {
		env = []string{}
	}
	keepDescriptorsFromChildren()
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	for range 3 {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll()
			return nil, errors.New("starting a worker: " + err.Error())
		}
		files = append(files, r, w)
	}
	inR, inW, outR, outW, errR, errW := files[0], files[1], files[2], files[3], files[4], files[5]
	proc, err := os.StartProcess(path, argv, &os.ProcAttr{
		Dir: dir, Env: env, Files: []*os.File{inR, outW, errW}, Sys: isolation(),
	})
	// The worker's ends are the worker's now (or nobody's).
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, errors.New("starting a worker: " + err.Error())
	}
	return &Process{Pid: proc.Pid, Stdin: inW, Stdout: outR, Stderr: errR, proc: proc}, nil
}

var (
	earlyMu sync.Mutex
	// early receives the worker process started as this program began;
	// nil when none is being started or it was taken.
	early chan *Process
)

func init() {
	args := os.Args[1:]
	if len(args) == 1 && args[0] == RunnerArg {
		startEarly() // a warm runner's worker, for the run it will be given
		return
	}
	runViaBroker(args) // exits when a warm runner ran the command
	if wantsEarlyWorker(args) {
		startEarly()
	}
}

// startEarly starts a worker process from another goroutine: starting a
// process waits until it has executed the binary, which the rest of the
// initialization need not wait for. An error here is not reported: the run
// starts its worker itself later and reports that one's error.
func startEarly() {
	ch := make(chan *Process, 1)
	early = ch
	go func() {
		p, _ := Start(Executable(), []string{Executable(), Arg}, nil, "")
		ch <- p
	}()
}

// Take returns the worker process started as this program began, once;
// nil when none was started (or it failed to start) or it was taken
// before.
func Take() *Process {
	earlyMu.Lock()
	ch := early
	early = nil
	earlyMu.Unlock()
	if ch == nil {
		return nil
	}
	return <-ch
}

// peekEarly waits for the worker process started as this program began
// and returns it, leaving it to be taken; nil when there is none.
func peekEarly() *Process {
	earlyMu.Lock()
	defer earlyMu.Unlock()
	if early == nil {
		return nil
	}
	p := <-early
	ch := make(chan *Process, 1)
	ch <- p
	early = ch
	return p
}

// Discard stops the worker process started as this program began if
// nobody took it (the run ended before it needed one: a usage error, a
// broken mcp.json).
func Discard() {
	p := Take()
	if p == nil {
		return
	}
	p.Stdin.Close() // the worker ends when its job never comes
	p.KillGroup()
	_, _ = p.Wait()
	p.Stdout.Close()
	p.Stderr.Close()
}

// RunBoolFlags are the run command's flags that take no value: every other
// flag of it takes one, as the next argument when not written -flag=value.
// The CLI's tests keep this list equal to the run command's flag set.
var RunBoolFlags = []string{"check", "json"}

// wantsEarlyWorker says whether the command line is a run that will need a
// worker process: `run` without isolation other than "worker" and without
// asking for help. A wrong guess costs only time, since an unused early
// worker is discarded and a run without one starts its own.
func wantsEarlyWorker(args []string) bool {
	run, help, isolation := readRunFlags(args)
	return run && !help && (isolation == "" || isolation == "worker")
}

// readRunFlags says whether args is a `run` command line, whether it asks
// for help, and its --isolation ("" when not given). It reads the flags
// as the run command's flag set does (they may follow the program's file;
// a flag's value is never a flag; "--" in a flag's place ends them); a
// command line the flag set would refuse reads as asking for help.
func readRunFlags(args []string) (run, help bool, isolation string) {
	if len(args) == 0 || args[0] != "run" {
		return false, false, ""
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' {
			continue // the program's file, or - for stdin
		}
		name := a[1:]
		if name[0] == '-' {
			name = name[1:]
		}
		value, hasValue := "", false
		for j := 0; j < len(name); j++ {
			if name[j] == '=' {
				name, value, hasValue = name[:j], name[j+1:], true
				break
			}
		}
		switch {
		case name == "h" || name == "help":
			return true, true, isolation
		case isRunBoolFlag(name):
			continue
		case !hasValue:
			if i+1 >= len(args) {
				return true, true, isolation // a usage error
			}
			i++
			value = args[i]
		}
		if name == "isolation" {
			isolation = value
		}
	}
	return true, false, isolation
}

func isRunBoolFlag(name string) bool {
	for _, b := range RunBoolFlags {
		if b == name {
			return true
		}
	}
	return false
}
