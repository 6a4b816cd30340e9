package runtime

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dop251/goja"
)

// workspaceFS is "mcpcode:fs": files under <workspace>/workspace/, reached
// only through an os.Root so that "..", absolute paths and symlinks leading
// out are refused by the OS-level confinement as well as by the checks here.
type workspaceFS struct {
	dir     string // <workspace>/workspace, "" when the run has no workspace
	root    *os.Root
	written int64
}

// fsError is an error a file function rejects with; limit names the limit
// it hit, if any.
type fsError struct {
	msg   string
	limit string
}

func (e *fsError) Error() string { return e.msg }

func fsErrorf(format string, args ...any) error { return &fsError{msg: fmt.Sprintf(format, args...)} }

// Bounds of workspace paths, and the least a created file or directory
// costs against the write quota (so that creating many empty files is
// charged like the disk space and inodes it takes).
const (
	maxPathBytes    = 1024
	maxPathSegments = 32
	fsEntryCost     = 4 * kib
)

// checkPath validates a program's path and returns it cleaned. allowDir
// accepts "" and "." for workspace/ itself.
func checkPath(op, p string, allowDir bool) (string, error) {
	switch {
	case len(p) > maxPathBytes:
		return "", fsErrorf("%s: path %q... is longer than %d bytes: use shorter names", op, p[:64], maxPathBytes)
	case strings.ContainsRune(p, 0):
		return "", fsErrorf("%s: path %q contains a NUL character", op, p)
	case strings.Contains(p, `\`):
		return "", fsErrorf("%s: path %q contains a backslash: use forward slashes", op, p)
	case path.IsAbs(p) || filepath.IsAbs(p) || filepath.VolumeName(p) != "":
		return "", fsErrorf("%s: path %q is outside workspace/: paths are relative to workspace/", op, p)
	}
	clean := path.Clean(p)
	if p == "" || clean == "." {
		if allowDir {
			return ".", nil
		}
		return "", fsErrorf("%s: path %q names workspace/ itself: give a file path relative to workspace/", op, p)
	}
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fsErrorf("%s: path %q is outside workspace/: paths are relative to workspace/", op, p)
	}
	if n := strings.Count(clean, "/") + 1; n > maxPathSegments {
		return "", fsErrorf("%s: path %q has %d segments, more than %d: use a flatter layout", op, p, n, maxPathSegments)
	}
	return clean, nil
}

// open returns the root, creating workspace/ first when create is set. A
// missing workspace/ reads as empty.
func (w *workspaceFS) open(create bool) (*os.Root, error) {
	if w.root != nil {
		return w.root, nil
	}
	if w.dir == "" {
		return nil, fsErrorf("this run has no workspace, so there are no files")
	}
	if st, err := os.Lstat(w.dir); err == nil && !st.IsDir() {
		return nil, errFilesNotPlain // not made through a dangling link either
	}
	if create {
		if err := os.MkdirAll(w.dir, 0o755); err != nil {
			return nil, fsErrorf("creating workspace/: %v", unwrapPathError(err))
		}
	}
	// workspace/ itself must be a real directory: os.Root confines a
	// program to what a symbolic link leads to, which for "workspace ->
	// ." is mcp.json and .mcpcode/ (the token store, the audit log). The
	// check (Lstat) and the open are compared, so a swap between them is
	// refused too.
	before, err := os.Lstat(w.dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fsErrorf("opening workspace/: %v", unwrapPathError(err))
	}
	if !before.IsDir() {
		return nil, errFilesNotPlain
	}
	root, err := os.OpenRoot(w.dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fsErrorf("opening workspace/: %v", unwrapPathError(err))
	}
	if after, err := root.Stat("."); err != nil || !os.SameFile(before, after) {
		root.Close()
		return nil, errFilesNotPlain
	}
	w.root = root
	return root, nil
}

// errFilesNotPlain refuses workspace/ when it is not a real directory.
var errFilesNotPlain = fsErrorf("workspace/ is a symbolic link or not a directory, which programs' files do not follow: replace it with a real directory")

func (w *workspaceFS) close() {
	if w.root != nil {
		w.root.Close()
		w.root = nil
	}
}

// describe words an error of an os.Root operation without host paths.
func describe(op, p string, err error) error {
	var fe *fsError
	if errors.As(err, &fe) {
		return err
	}
	inner := unwrapPathError(err)
	switch {
	case strings.Contains(inner.Error(), "escapes from parent"):
		return fsErrorf("%s: path %q is outside workspace/ (through a symbolic link): paths are relative to workspace/", op, p)
	case errors.Is(err, fs.ErrNotExist):
		return fsErrorf("%s: %q does not exist in workspace/", op, p)
	}
	return fsErrorf("%s: %q: %v", op, p, inner)
}

// fsWrites are the file functions that change files: a skill may call
// them only when its grants (all of them, when skills nest) include write.
var fsWrites = map[string]bool{"writeFile": true, "appendFile": true, "rm": true, "writeJSON": true}

// installFS puts on the host object the function that makes "mcpcode:fs"
// for the realm's scope: its file functions each return a promise, as
// declared in mcpcode.d.ts.
func (r *run) installFS(host *goja.Object) error {
	fns := r.fsFunctions()
	return host.Set("fs", func(goja.FunctionCall) goja.Value {
		return r.fsObject(r.scope, fns)
	})
}

// fsObject is the module object of one scope.
func (r *run) fsObject(sc *scopeDescriptor, fns map[string]func(goja.FunctionCall) (goja.Value, error)) *goja.Object {
	obj := r.vm.NewObject()
	for _, name := range fsFunctionNames {
		fn := fns[name]
		denied := fsWrites[name] && sc != nil && !sc.Write
		_ = obj.Set(name, func(c goja.FunctionCall) goja.Value {
			promise, resolve, reject := r.vm.NewPromise()
			switch {
			case r.finished:
				_ = reject(r.finishedError(name))
			case denied:
				msg := fsPermissionMessage(sc, name, primitiveText(c.Argument(0)))
				_ = reject(r.newToolError(KindPermission, msg, "mcpcode:fs", name, "", r.vm.CaptureCallStack(32, nil)))
			default:
				v, err := fn(c)
				if err != nil {
					_ = reject(r.fsErrorValue(err))
				} else {
					_ = resolve(v)
				}
			}
			return r.vm.ToValue(promise)
		})
	}
	return obj
}

// fsPermissionMessage says why a skill may not change a workspace file.
func fsPermissionMessage(sc *scopeDescriptor, op, path string) string {
	if len(sc.Skills) <= 1 {
		return fmt.Sprintf("skill %q may not %s(%q): skills may only read workspace files unless their SKILL.md grants write (approve with --allow-write)", sc.Skill, op, path)
	}
	return fmt.Sprintf("skill %q may not %s(%q): skills may only read workspace files, and not every skill it runs under (%s) grants write in its SKILL.md (approve with --allow-write)", sc.Skill, op, path, strings.Join(sc.Skills, ", "))
}

// fsFunctions are the file functions, shared by every scope's module.
func (r *run) fsFunctions() map[string]func(goja.FunctionCall) (goja.Value, error) {
	w := r.fs
	str := func(v goja.Value) string {
		if v == nil || goja.IsUndefined(v) {
			return ""
		}
		return v.String()
	}
	fns := map[string]func(goja.FunctionCall) (goja.Value, error){
		"readFile": func(c goja.FunctionCall) (goja.Value, error) {
			p := str(c.Argument(0))
			data, err := w.read("readFile", p)
			if err != nil {
				return nil, err
			}
			return r.vm.ToValue(string(data)), nil
		},
		"writeFile": func(c goja.FunctionCall) (goja.Value, error) {
			return goja.Undefined(), w.write(r, "writeFile", str(c.Argument(0)), str(c.Argument(1)), false)
		},
		"appendFile": func(c goja.FunctionCall) (goja.Value, error) {
			return goja.Undefined(), w.write(r, "appendFile", str(c.Argument(0)), str(c.Argument(1)), true)
		},
		"readdir": func(c goja.FunctionCall) (goja.Value, error) {
			names, err := w.readdir(str(c.Argument(0)))
			if err != nil {
				return nil, err
			}
			return r.vm.ToValue(names), nil
		},
		"exists": func(c goja.FunctionCall) (goja.Value, error) {
			ok, err := w.exists(str(c.Argument(0)))
			return r.vm.ToValue(ok), err
		},
		"rm": func(c goja.FunctionCall) (goja.Value, error) {
			return goja.Undefined(), w.rm(str(c.Argument(0)))
		},
		"readJSON": func(c goja.FunctionCall) (goja.Value, error) {
			p := str(c.Argument(0))
			data, err := w.read("readJSON", p)
			if err != nil {
				return nil, err
			}
			v, err := r.intr.parse(goja.Undefined(), r.vm.ToValue(string(data)))
			if err != nil {
				if isUncatchable(err) {
					panic(err)
				}
				return nil, fsErrorf("readJSON: %q is not valid JSON: %v", p, exceptionText(err))
			}
			return v, nil
		},
		"writeJSON": func(c goja.FunctionCall) (goja.Value, error) {
			p := str(c.Argument(0))
			s, err := r.intr.stringifyIndented(goja.Undefined(), c.Argument(1))
			if err != nil {
				if isUncatchable(err) {
					panic(err)
				}
				return nil, fsErrorf("writeJSON: the value for %q cannot be converted to JSON: %v", p, exceptionText(err))
			}
			if goja.IsUndefined(s) {
				return nil, fsErrorf("writeJSON: the value for %q cannot be converted to JSON", p)
			}
			return goja.Undefined(), w.write(r, "writeJSON", p, s.String()+"\n", false)
		},
	}
	return fns
}

// fsErrorValue turns a file error into a JS Error (one that reports a limit
// when it is the write quota).
func (r *run) fsErrorValue(err error) goja.Value {
	obj := r.newError(err.Error())
	var fe *fsError
	if errors.As(err, &fe) && fe.limit != "" {
		r.hostErrors[obj] = hostError{kind: KindLimit, limit: fe.limit}
	}
	return obj
}

func (w *workspaceFS) read(op, p string) ([]byte, error) {
	clean, err := checkPath(op, p, false)
	if err != nil {
		return nil, err
	}
	root, err := w.open(false)
	if err != nil {
		return nil, describe(op, p, err)
	}
	data, err := root.ReadFile(clean)
	if err != nil {
		return nil, describe(op, p, err)
	}
	return data, nil
}

// write creates, replaces or appends to a file within the run's quota: the
// bytes written, and fsEntryCost for each file or directory it creates.
func (w *workspaceFS) write(r *run, op, p, data string, appendTo bool) error {
	clean, err := checkPath(op, p, false)
	if err != nil {
		return err
	}
	root, err := w.open(true)
	if err != nil {
		return describe(op, p, err)
	}
	cost := int64(len(data)) + fsEntryCost*int64(createdEntries(root, clean))
	if w.written+cost > r.lim.FSQuota {
		return &fsError{msg: fmt.Sprintf("%s(%q): %s", op, p, r.lim.limitMessage(LimitFSQuota)), limit: LimitFSQuota}
	}
	w.written += cost
	if dir := path.Dir(clean); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return describe(op, p, err)
		}
	}
	if !appendTo {
		if err := root.WriteFile(clean, []byte(data), 0o644); err != nil {
			return describe(op, p, err)
		}
		return nil
	}
	f, err := root.OpenFile(clean, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return describe(op, p, err)
	}
	_, err = f.WriteString(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return describe(op, p, err)
	}
	return nil
}

// createdEntries counts the directories and the file that writing clean
// would create.
func createdEntries(root *os.Root, clean string) int {
	n := 0
	if _, err := root.Lstat(clean); err != nil {
		n++
	}
	for dir := path.Dir(clean); dir != "."; dir = path.Dir(dir) {
		if _, err := root.Stat(dir); err == nil {
			break
		}
		n++
	}
	return n
}

func (w *workspaceFS) readdir(p string) ([]string, error) {
	clean, err := checkPath("readdir", p, true)
	if err != nil {
		return nil, err
	}
	root, err := w.open(false)
	if errors.Is(err, fs.ErrNotExist) && clean == "." {
		return []string{}, nil
	}
	if err != nil {
		return nil, describe("readdir", p, err)
	}
	f, err := root.Open(clean)
	if err != nil {
		return nil, describe("readdir", p, err)
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, describe("readdir", p, err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		names = append(names, name)
	}
	slices.Sort(names)
	return names, nil
}

func (w *workspaceFS) exists(p string) (bool, error) {
	clean, err := checkPath("exists", p, true)
	if err != nil {
		return false, err
	}
	root, err := w.open(false)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, describe("exists", p, err)
	}
	if _, err := root.Stat(clean); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, describe("exists", p, err)
	}
	return true, nil
}

func (w *workspaceFS) rm(p string) error {
	clean, err := checkPath("rm", p, false)
	if err != nil {
		return err
	}
	root, err := w.open(false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return describe("rm", p, err)
	}
	if err := root.RemoveAll(clean); err != nil {
		return describe("rm", p, err)
	}
	return nil
}

// exceptionText is the message of a JS exception returned to Go.
func exceptionText(err error) string {
	var ex *goja.Exception
	if errors.As(err, &ex) {
		return ex.Value().String()
	}
	return err.Error()
}
