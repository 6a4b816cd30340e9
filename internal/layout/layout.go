// Package layout names the parts of a workspace, once for every package:
// the root directory holding mcp.json, the generated tree, the skills, the
// files folder programs read and write, and mcpcode's own state.
//
// "Workspace" is the root; "files folder" is its workspace/ directory.
package layout

import "path/filepath"

// Names of the workspace's parts, relative to its root. Paths inside
// programs use them with forward slashes ("servers/x/y", "skills/name").
const (
	// ConfigFile is the upstream servers' configuration; ".mcp.json" is
	// accepted too (see AltConfigFile).
	ConfigFile    = "mcp.json"
	AltConfigFile = ".mcp.json"
	// ServersDir holds the generated tree: servers/<server>/<tool>.ts.
	ServersDir = "servers"
	// SkillsDir holds approved skills: skills/<name>/{SKILL.md,index.ts}.
	SkillsDir = "skills"
	// ProposalsDir, DismissedDir and RevokedDir, inside SkillsDir, hold
	// skills that are not approved (or no longer): they can never be
	// imported or run.
	ProposalsDir = ".proposals"
	DismissedDir = ".dismissed"
	RevokedDir   = ".revoked"
	// FilesDir is the files folder that programs read and write
	// (mcpcode:fs) across runs.
	FilesDir = "workspace"
	// StateDir holds mcpcode's own state: the generator manifest, logs,
	// locks. It is not for agents.
	StateDir = ".mcpcode"
	// ManifestFile, LogsDir, GenLockFile and SessionDir live in StateDir.
	ManifestFile = "manifest.json"
	LogsDir      = "logs"
	GenLockFile  = "gen.lock"
	// SessionDir holds a workspace session's socket and lock (mcpcode
	// session); only its user may enter it.
	SessionDir = "session"
)

// ConfigFiles are the configuration file names looked for, in order.
var ConfigFiles = []string{ConfigFile, AltConfigFile}

// Paths are the absolute paths of one workspace's parts.
type Paths struct {
	// Root is the workspace directory (absolute).
	Root string
}

// Servers is the generated tree's directory.
func (p Paths) Servers() string { return filepath.Join(p.Root, ServersDir) }

// Skills is the approved skills' directory.
func (p Paths) Skills() string { return filepath.Join(p.Root, SkillsDir) }

// Proposals is the pending proposals' directory.
func (p Paths) Proposals() string { return filepath.Join(p.Root, SkillsDir, ProposalsDir) }

// Dismissed is the dismissed proposals' directory.
func (p Paths) Dismissed() string { return filepath.Join(p.Root, SkillsDir, DismissedDir) }

// Files is the files folder programs read and write.
func (p Paths) Files() string { return filepath.Join(p.Root, FilesDir) }

// State is mcpcode's own directory.
func (p Paths) State() string { return filepath.Join(p.Root, StateDir) }

// Manifest is the generator manifest of the tree in Servers().
func (p Paths) Manifest() string { return ManifestFor(p.Servers()) }

// Logs holds one log file per stdio server (its stderr).
func (p Paths) Logs() string { return filepath.Join(p.Root, StateDir, LogsDir) }

// Session is the directory of the workspace's session (mcpcode session).
func (p Paths) Session() string { return filepath.Join(p.Root, StateDir, SessionDir) }

// ManifestFor is the manifest of a tree generated into outDir: it lives in
// the state directory next to outDir, so a tree written elsewhere with
// --out keeps its own.
func ManifestFor(outDir string) string {
	return filepath.Join(filepath.Dir(outDir), StateDir, ManifestFile)
}

// GenLockFor is the lock gen holds while writing a tree into outDir.
func GenLockFor(outDir string) string {
	return filepath.Join(filepath.Dir(outDir), StateDir, GenLockFile)
}
