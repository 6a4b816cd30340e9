// Command pairs times whole processes side by side: each round runs every
// command once, in a shuffled order, so that a loaded machine slows them
// alike; ratios are taken per round against the first command (the
// reference) and their median reported. It also reports the CPU time
// (user + system) of each process tree, and, in separate runs after the
// timed ones, the peak resident memory of the tree: the sum over its
// processes of each one's peak (VmHWM, sampled every millisecond; an upper
// bound of the tree's peak at any one moment). Linux only: it becomes a
// child subreaper so that processes a command leaves behind are counted.
//
//	go run ./testdata/bench/pairs -n 30 -- 'node=node -e 0' 'mcpcode=./mcpcode run hello.ts'
//
// Each command is NAME=COMMAND LINE, split on spaces (no shell; write
// sh -c '...' as a separate script when one is needed). A command that
// fails stops the measurement. -dir sets the working directory. -gap
// waits between runs, so that what a command leaves running does not slow
// the next command. -also NAME=TEXT counts, in NAME's peak memory, every
// process whose command line contains TEXT (and its descendants) while
// NAME runs: a resident process that does the command's work, such as a
// workspace session of mcpcode and the servers it keeps.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

type command struct {
	name string
	argv []string
	also string // processes whose command line holds it count in the peak memory
	wall []time.Duration
	cpu  []time.Duration
	rss  []int64 // KiB
}

func main() {
	n := flag.Int("n", 20, "timed rounds")
	warm := flag.Int("warm", 2, "untimed rounds first (page cache, first-run costs)")
	rssRuns := flag.Int("rss", 3, "runs per command that sample peak memory (not timed)")
	dir := flag.String("dir", "", "working directory of the commands")
	flag.DurationVar(&gap, "gap", 0, "pause before each run")
	var also []string
	flag.Func("also", "NAME=TEXT: count processes whose command line contains TEXT in NAME's peak memory", func(v string) error {
		also = append(also, v)
		return nil
	})
	flag.Parse()
	var cmds []*command
	for _, arg := range flag.Args() {
		name, line, ok := strings.Cut(arg, "=")
		if !ok || strings.TrimSpace(line) == "" {
			fail("%q: write NAME=COMMAND", arg)
		}
		cmds = append(cmds, &command{name: name, argv: strings.Fields(line)})
	}
	if len(cmds) == 0 {
		fail("no commands")
	}
	for _, a := range also {
		name, text, _ := strings.Cut(a, "=")
		i := slices.IndexFunc(cmds, func(c *command) bool { return c.name == name })
		if i < 0 || text == "" {
			fail("-also %q: want NAME=TEXT for one of the commands", a)
		}
		cmds[i].also = text
	}
	// Orphans of the commands become this process's children, so that
	// their CPU time is counted (run).
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fail("becoming a subreaper: %v", err)
	}
	load0 := loadavg()
	for i := 0; i < *warm; i++ {
		for _, c := range cmds {
			run(c, *dir, false)
		}
	}
	order := make([]int, len(cmds))
	for i := range order {
		order[i] = i
	}
	for i := 0; i < *n; i++ {
		rand.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		for _, j := range order {
			c := cmds[j]
			wall, cpu, _ := run(c, *dir, false)
			c.wall = append(c.wall, wall)
			c.cpu = append(c.cpu, cpu)
		}
	}
	for i := 0; i < *rssRuns; i++ {
		for _, c := range cmds {
			_, _, rss := run(c, *dir, true)
			c.rss = append(c.rss, rss)
		}
	}
	load1 := loadavg()
	ref := cmds[0]
	fmt.Printf("%d rounds (+%d warm-up), %s, load average %s before and %s after\n", *n, *warm, time.Now().Format("2006-01-02"), load0, load1)
	fmt.Printf("%-28s %10s %10s %10s %14s %12s\n", "command", "median", "min", "cpu median", "ratio to "+ref.name, "peak RSS")
	for _, c := range cmds {
		ratios := make([]float64, len(c.wall))
		for i := range c.wall {
			ratios[i] = float64(c.wall[i]) / float64(ref.wall[i])
		}
		rss := "not sampled"
		if len(c.rss) > 0 {
			rss = fmt.Sprintf("%.1f MiB", float64(slices.Max(c.rss))/1024)
		}
		fmt.Printf("%-28s %10s %10s %10s %13.2f× %13s\n", c.name, ms(median(c.wall)), ms(slices.Min(c.wall)), ms(median(c.cpu)), medianF(ratios), rss)
	}
}

// run runs c once and returns its wall time, the CPU time of its process
// tree (as far as the processes were waited for), and, when sampling, the
// tree's peak memory in KiB.
func run(c *command, dir string, sample bool) (time.Duration, time.Duration, int64) {
	time.Sleep(gap)
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = nil, os.Stderr
	var out strings.Builder
	cmd.Stdout = &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		fail("%s: %v", c.name, err)
	}
	var peak int64
	done := make(chan struct{})
	sampled := make(chan int64, 1)
	if sample {
		go func() {
			hwm := map[int]int64{}
			for {
				pids := tree(cmd.Process.Pid)
				if c.also != "" {
					for _, p := range matching(c.also) {
						pids = append(pids, tree(p)...)
					}
				}
				for _, pid := range pids {
					if v := vmHWM(pid); v > hwm[pid] {
						hwm[pid] = v
					}
				}
				select {
				case <-done:
					var sum int64
					for _, v := range hwm {
						sum += v
					}
					sampled <- sum
					return
				case <-time.After(time.Millisecond):
				}
			}
		}()
	}
	err := cmd.Wait()
	wall := time.Since(start)
	close(done)
	if sample {
		peak = <-sampled
		// The root's own peak, exactly (the kernel's, at exit).
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss > peak {
			peak = ru.Maxrss
		}
	}
	if err != nil {
		fail("%s: %v\n%s", c.name, err, out.String())
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	// Processes the command left to die on their own (a worker killed as
	// the parent exits) were reparented to this process, a subreaper:
	// count their CPU time too. Those it left running on purpose (a
	// session, which lives for minutes) are not waited for.
	for deadline := time.Now().Add(5 * time.Second); ; {
		var ru syscall.Rusage
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, &ru)
		if err != nil {
			break // no children
		}
		if pid > 0 {
			cpu += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			continue
		}
		if !dyingChildren() || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	return wall, cpu, peak
}

// gap is the pause before each run (-gap).
var gap time.Duration

// dyingChildren says whether a child of this process is not a resident
// one (an mcpcode session): one that is still ending.
func dyingChildren() bool {
	for _, pid := range tree(os.Getpid())[1:] {
		if parent(pid) == os.Getpid() && !strings.Contains(cmdline(pid), "session start --foreground") {
			return true
		}
	}
	return false
}

func parent(pid int) int {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	s := string(data)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		if f := strings.Fields(s[i+1:]); len(f) > 1 {
			ppid, _ := strconv.Atoi(f[1])
			return ppid
		}
	}
	return 0
}

func cmdline(pid int) string {
	data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.ReplaceAll(string(data), "\x00", " ")
}

// matching lists the processes whose command line contains text.
func matching(text string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid != os.Getpid() && strings.Contains(cmdline(pid), text) {
			out = append(out, pid)
		}
	}
	return out
}

// tree lists pid and its descendants.
func tree(pid int) []int {
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", out[i]))
		for _, t := range tasks {
			data, _ := os.ReadFile(t)
			for _, f := range strings.Fields(string(data)) {
				if c, err := strconv.Atoi(f); err == nil {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// vmHWM is a process's peak resident set in KiB (0 once it is gone).
func vmHWM(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb
		}
	}
	return 0
}

func loadavg() string {
	data, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func medianF(x []float64) float64 {
	s := slices.Clone(x)
	sort.Float64s(s)
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "pairs: "+format+"\n", args...)
	os.Exit(1)
}
