package worker

import (
	"errors"
	"os"
	"os/exec"
	"slices"
)

// Arg is the hidden command of a worker process: the binary re-executed as
// `mcpcode __worker`, which calls Serve.
const Arg = "__worker"

// Command returns the command that starts a worker process: this binary
// with Arg (Options.Command of the CLI's pools).
func Command() *exec.Cmd { return exec.Command(executable(), Arg) }

// executable is this binary, which a worker process runs.
func executable() string {
	exe, err := os.Executable()
	if err != nil {
		return os.Args[0]
	}
	return exe
}

// process is a started worker process and the parent's ends of its pipes.
type process struct {
	// pid is the worker's process ID (also its process group's).
	pid int
	// stdin is written to the worker's standard input.
	stdin *os.File
	// stdout and stderr read the worker's standard output and error. They
	// are plain pipes, which nothing closes when the process ends: what the
	// worker wrote last can be read after it exited.
	stdout, stderr *os.File

	proc *os.Process
}

// wait waits until the worker process has ended and says how.
func (p *process) wait() (*os.ProcessState, error) { return p.proc.Wait() }

// killGroup sends the worker's process group SIGKILL without waiting.
func (p *process) killGroup() {
	killGroup(p.pid)
	_ = p.proc.Kill()
}

// startProcess starts a worker process: path with argv (argv[0] included)
// in dir ("" for this process's), with env, or an empty environment when
// env is nil (it should hold nothing secret), plus what startEnv adds, in
// its own process group, killed by the kernel if the parent dies (Linux),
// its standard streams pipes (of the system's default size: a larger one
// gained nothing, BenchmarkPipeTransfer), and no other descriptor of this
// process: descriptors this process inherited open across exec (an agent
// host's socket, a shell's 3<file) are first made close-on-exec, for
// every process it starts from then on.
//
// It uses os.StartProcess rather than os/exec: the pipes are plain files
// that stay readable after the worker exited (os/exec closes them on
// Wait), so what a dying worker wrote last can still be read.
func startProcess(path string, argv, env []string, dir string) (*process, error) {
	if env == nil {
		env = []string{}
	}
	env = startEnv(slices.Clip(env)) // startup.go
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
	return &process{pid: proc.Pid, stdin: inW, stdout: outR, stderr: errR, proc: proc}, nil
}
