// Package session holds what both ends of a workspace session share (mcpcode
// session: a process that keeps a workspace's upstream servers connected
// between runs): where its socket lives, how it is listened on and dialed
// (same user only), and the names and shapes of the requests a run sends it.
// The serving side is gateway.Session, the client side servers.Session.
//
// The socket is .mcpcode/session/sock inside the workspace. The directory is
// made 0700 and the socket 0600; both ends check the directory (a directory,
// not a symbolic link, owned by this user, with no access for others) and the
// other end's user (SO_PEERCRED) before anything is sent, so that neither a
// process of another user nor a socket planted by one is ever used.
package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// File names in the session directory (layout.Paths.Session).
const (
	// SocketName is the socket the session listens on.
	SocketName = "sock"
	// LockName is held by the session process for its whole life: one
	// session per workspace.
	LockName = "lock"
)

// The tools a session serves to runs of its own user. Their arguments and
// results are JSON; raw definitions and results travel as the text of the
// tool result, byte for byte as the upstream server sent them.
const (
	// ToolStatus answers Status.
	ToolStatus = "mcpcode_session_status"
	// ToolStop stops the session once it has answered.
	ToolStop = "mcpcode_session_stop"
	// ToolTools lists a server's tools: ServerArgs in, Listing out.
	ToolTools = "mcpcode_upstream_tools"
	// ToolCall calls a server's tool: CallArgs in; out, the server's result
	// itself, byte for byte (see RawKey).
	ToolCall = "mcpcode_upstream_call"
	// ToolResources lists a server's resources: ServerArgs in, the
	// server's resources/list result out.
	ToolResources = "mcpcode_upstream_resources"
	// ToolRead reads a resource: ReadArgs in, the server's resources/read
	// result out.
	ToolRead = "mcpcode_upstream_read"
)

// Meta keys the session adds to what it forwards to a run: the server a
// question (elicitation) comes from and the order of its form's fields,
// and, on a progress notification, the notice it carries (a
// mcptool.Notice as JSON: progress or a log message of the upstream server).
const (
	MetaServer = "mcpcode/server"
	MetaOrder  = "mcpcode/order"
	MetaNotice = "mcpcode/notice"
)

// RawKey and FailureKey are the keys of the structured content by which
// the session's answers to ToolCall are told apart. The handler answers
// with {"mcpcode/raw": KEY}, and the session's side of the connection puts
// the upstream server's result, as received, in that answer's place as it
// writes it: a result of megabytes is neither decoded nor escaped on its
// way (the run's side reads it with the same tap as its own pool's). A
// call the session could not make is answered with an error result whose
// structured content is {"mcpcode/failure": Failure}.
const (
	RawKey     = "mcpcode/raw"
	FailureKey = "mcpcode/failure"
)

// ServerArgs name an upstream server.
type ServerArgs struct {
	Server string `json:"server"`
}

// CallArgs are one tool call.
type CallArgs struct {
	Server    string          `json:"server"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	// StructuredOnly: the caller uses only the structured content
	// (mcptool.StructuredOnly).
	StructuredOnly bool `json:"structuredOnly,omitempty"`
}

// ReadArgs read one resource.
type ReadArgs struct {
	Server string `json:"server"`
	URI    string `json:"uri"`
}

// Listing is a server's tools as it listed them (raw definitions, in its
// order) and what its initialize said.
type Listing struct {
	Tools           []json.RawMessage `json:"tools"`
	ServerName      string            `json:"serverName"`
	ServerVersion   string            `json:"serverVersion"`
	ProtocolVersion string            `json:"protocolVersion"`
}

// Failure is a request the session could not serve (the tool result is
// then an error): the error's text, and whether it is about a server the
// configuration does not have (mcptool.ErrUnknownServer).
type Failure struct {
	Error         string `json:"error"`
	UnknownServer bool   `json:"unknownServer,omitempty"`
}

// Status is what a session says about itself.
type Status struct {
	Workspace string `json:"workspace"`
	// Config is the mcp.json it serves.
	Config string `json:"config"`
	// Entries identify each server's entry as the session expanded it
	// (servers.Config.EntryDigests): a run whose own reading differs does
	// not use the session.
	Entries map[string]string `json:"entries,omitempty"`
	Pid     int               `json:"pid"`
	// Binary identifies the mcpcode binary it runs (ExecutableID).
	Binary  string    `json:"binary"`
	Started time.Time `json:"started"`
	// LastUsed is when a run last asked it something.
	LastUsed time.Time `json:"lastUsed"`
	// IdleStop is how long it waits without a request before it stops
	// (0: it does not).
	IdleStop Duration `json:"idleStop"`
	// Servers are the upstream servers it has started or connected.
	Servers []ServerStatus `json:"servers"`
	// Restarted names the servers restarted because their entry in
	// mcp.json changed while the session ran.
	Restarted []string `json:"restarted,omitempty"`
}

// ServerStatus is one upstream server of a session.
type ServerStatus struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	// Connected says whether a connection is up now.
	Connected bool `json:"connected"`
	Tools     int  `json:"tools"`
	// Pid is a stdio server's process (0 otherwise).
	Pid int `json:"pid,omitempty"`
}

// Duration is a time.Duration as a string in JSON ("30m0s").
type Duration time.Duration

func (d Duration) MarshalJSON() ([]byte, error) {
	return []byte(strconv.Quote(time.Duration(d).String())), nil
}

func (d *Duration) UnmarshalJSON(b []byte) error {
	s, err := strconv.Unquote(string(b))
	if err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	*d = Duration(v)
	return err
}

// ExecutableID identifies the binary this process runs, as it is on disk
// now: its path, device, inode, size and modification time. A binary
// replaced (rebuilt, upgraded) gets another ID.
func ExecutableID() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return exe + " (" + err.Error() + ")"
	}
	return exe + " " + fileID(fi) + fmt.Sprintf(" %d %d", fi.Size(), fi.ModTime().UnixNano())
}

// CheckDir reports why dir may not hold a session's socket: it must be a
// directory (not a symbolic link), owned by this process's user, with no
// access for the group or others.
func CheckDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link, not a directory", dir)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	if err := ownedByMe(fi); err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s is open to other users (mode %o, want 0700)", dir, fi.Mode().Perm())
	}
	return nil
}

// Prepare makes the session directory dir (0700) if it does not exist and
// checks it. One that fails the check was not made so by mcpcode: the
// error says to remove it.
func Prepare(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	if err := CheckDir(dir); err != nil {
		return fmt.Errorf("%w: remove it and start the session again (it is made anew, 0700; if you did not make it so, another user may have, to reach your runs)", err)
	}
	return nil
}
