package servers

import (
	"reflect"
	"sort"
	"sync"
)

// Reconfigure makes the pool serve cfg (mcp.json read again): every server
// whose entry changed, or is gone, is stopped, and is started from its new
// entry on its next use; the others keep their connection (a workspace
// session keeps its servers across an edit of another server's entry). It
// returns the names of the servers it stopped, sorted.
func (p *Pool) Reconfigure(cfg *Config) []string {
	p.mu.Lock()
	var stale []*upstream
	var names []string
	for name, u := range p.ups {
		next, ok := cfg.Server(name)
		if ok && sameEntry(u.cfg, next) {
			continue
		}
		stale = append(stale, u)
		names = append(names, name)
		delete(p.ups, name)
	}
	p.cfg = cfg
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, u := range stale {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u.close()
		}()
	}
	wg.Wait()
	sort.Strings(names)
	return names
}

// sameEntry says whether two entries of a server start the same server.
func sameEntry(a, b ServerConfig) bool {
	errText := func(e error) string {
		if e == nil {
			return ""
		}
		return e.Error()
	}
	if errText(a.Err) != errText(b.Err) {
		return false
	}
	a.Err, b.Err = nil, nil
	return reflect.DeepEqual(a, b)
}

// UpstreamInfo is what the pool holds of one server.
type UpstreamInfo struct {
	Name, Transport string
	// Connected says whether a session is up.
	Connected bool
	Tools     int
	// Pid is a stdio server's process (0 when none runs).
	Pid int
}

// Upstreams lists the servers the pool has used, sorted by name, without
// connecting any.
func (p *Pool) Upstreams() []UpstreamInfo {
	p.mu.Lock()
	ups := make([]*upstream, 0, len(p.ups))
	for _, u := range p.ups {
		ups = append(ups, u)
	}
	p.mu.Unlock()
	out := make([]UpstreamInfo, 0, len(ups))
	for _, u := range ups {
		info := UpstreamInfo{Name: u.cfg.Name, Transport: u.cfg.Transport}
		u.mu.Lock()
		if u.sess != nil {
			info.Connected = true
			if u.listing != nil {
				info.Tools = len(u.listing.Tools)
			}
		}
		u.mu.Unlock()
		if u.stdio != nil && info.Connected {
			info.Pid = u.stdio.pid()
		}
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// pid is the running server's process id, 0 when none runs.
func (t *stdioTransport) pid() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.proc == nil || t.proc.cmd.Process == nil {
		return 0
	}
	select {
	case <-t.proc.exited:
		return 0
	default:
		return t.proc.cmd.Process.Pid
	}
}
