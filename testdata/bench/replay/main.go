// Command replay is a stdio MCP server whose answers are precomputed: it
// measures what a client costs when the server costs nothing.
//
//	replay record FILE -- COMMAND [ARG...]   ask a real stdio server once and keep its answers
//	replay catalog FILE -n N -corpus DIR      a server of N tools: the corpus's, cycled and renamed
//	replay serve FILE                         answer as that server did
//	replay client [-tool T] [-args JSON] -- COMMAND [ARG...]
//	                                          the least a client does: one call, its answer read and dropped
//
// record sends initialize, tools/list and one tools/call (-tool, -args) to
// the server and writes the three results to FILE, one per line, as the
// server sent them (so that serve reads them without decoding anything). serve answers every
// initialize, tools/list and tools/call with them (any tool, any
// arguments), pings with {}, other requests with a JSON-RPC error, and
// exits when its stdin closes. A tools/list of more than 1 MB is served in
// pages of 500 tools. A result is written as bytes prepared
// before the request came: only the request's id is spliced in.
//
// client starts a stdio server, sends it initialize, initialized, tools/list
// and one tools/call, reads each answer through one reused 64 KiB buffer and
// drops it, closes the server's stdin and waits for it to exit. Timed as a
// whole process against replay serve, it is the server's own share of a
// flow (its start, reading its recording, writing the answer) plus a bare
// pipe read: what is left of a client's time after subtracting it is the
// client's own.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
)

func main() {
	if len(os.Args) < 3 {
		fail("usage: replay record FILE [-tool T] [-args JSON] -- COMMAND [ARG...] | replay serve FILE")
	}
	switch os.Args[1] {
	case "record":
		fs := flag.NewFlagSet("record", flag.ExitOnError)
		tool := fs.String("tool", "getSheet", "the tool to call")
		args := fs.String("args", `{"sheetId":"abc123"}`, "the call's arguments")
		file := os.Args[2]
		_ = fs.Parse(os.Args[3:])
		if fs.NArg() == 0 {
			fail("record: no server command after --")
		}
		record(file, *tool, json.RawMessage(*args), fs.Args())
	case "catalog":
		fs := flag.NewFlagSet("catalog", flag.ExitOnError)
		n := fs.Int("n", 10000, "the number of tools")
		corpus := fs.String("corpus", "generator/testdata/corpus", "a directory of JSON files, each an array of tool definitions")
		file := os.Args[2]
		_ = fs.Parse(os.Args[3:])
		catalog(file, *n, *corpus)
	case "serve":
		serve(os.Args[2])
	case "client":
		fs := flag.NewFlagSet("client", flag.ExitOnError)
		tool := fs.String("tool", "getSheet", "the tool to call")
		args := fs.String("args", `{"sheetId":"abc123"}`, "the call's arguments")
		_ = fs.Parse(os.Args[2:])
		if fs.NArg() == 0 {
			fail("client: no server command after --")
		}
		client(*tool, json.RawMessage(*args), fs.Args())
	default:
		fail("unknown mode %q", os.Args[1])
	}
}

// recording is what a server answered.
type recording struct {
	Initialize, ToolsList, ToolsCall json.RawMessage
}

func record(file, tool string, args json.RawMessage, argv []string) {
	srv := startServer(argv, 1<<20)
	ask := func(method string, params any) json.RawMessage {
		id := srv.send(method, params)
		for {
			line, err := srv.out.ReadBytes('\n')
			check(err)
			var resp struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(line, &resp) != nil || resp.ID == nil || *resp.ID != id {
				continue // a notification or a log line
			}
			if resp.Error != nil {
				fail("%s: %s", method, resp.Error)
			}
			return resp.Result
		}
	}
	var rec recording
	rec.Initialize = ask("initialize", initializeParams)
	srv.initialized()
	rec.ToolsList = ask("tools/list", map[string]any{})
	rec.ToolsCall = ask("tools/call", map[string]any{"name": tool, "arguments": args})
	srv.in.Close()
	_ = srv.cmd.Wait()
	var data []byte
	for _, r := range []json.RawMessage{rec.Initialize, rec.ToolsList, rec.ToolsCall} {
		if bytes.ContainsAny(r, "\r\n") {
			var compact bytes.Buffer
			check(json.Compact(&compact, r))
			r = compact.Bytes()
		}
		data = append(append(data, r...), '\n')
	}
	check(os.WriteFile(file, data, 0o644))
	fmt.Fprintf(os.Stderr, "replay: recorded %d bytes of tools/call result\n", len(rec.ToolsCall))
}

// catalog writes a recording of a server whose tools/list has n tools:
// the corpus's tools cycled, each renamed <name>_<i> (as the generator's
// and the CLI's 10,000-tool benchmarks make them).
func catalog(file string, n int, corpus string) {
	names, err := filepath.Glob(filepath.Join(corpus, "*.json"))
	check(err)
	sort.Strings(names)
	var pool []map[string]json.RawMessage
	for _, name := range names {
		data, err := os.ReadFile(name)
		check(err)
		var tools []map[string]json.RawMessage
		if json.Unmarshal(data, &tools) != nil {
			continue // not a list of tools (INDEX.md's neighbours)
		}
		pool = append(pool, tools...)
	}
	if len(pool) == 0 {
		fail("no tools in %s", corpus)
	}
	tools := make([]map[string]json.RawMessage, n)
	for i := range tools {
		t := map[string]json.RawMessage{}
		for k, v := range pool[i%len(pool)] {
			t[k] = v
		}
		var name string
		_ = json.Unmarshal(t["name"], &name)
		t["name"], _ = json.Marshal(fmt.Sprintf("%s_%d", name, i))
		tools[i] = t
	}
	list, err := json.Marshal(map[string]any{"tools": tools})
	check(err)
	initialize := `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"catalog","version":"1.0.0"}}`
	data := initialize + "\n" + string(list) + "\n" + `{"content":[{"type":"text","text":"ok"}]}` + "\n"
	check(os.WriteFile(file, []byte(data), 0o644))
	fmt.Fprintf(os.Stderr, "replay: a catalog of %d tools, %d bytes of tools/list\n", n, len(list))
}

// pageSize is the number of tools in a page of a long tools/list.
const pageSize = 500

func serve(file string) {
	data, err := os.ReadFile(file)
	check(err)
	lines := bytes.SplitN(data, []byte("\n"), 4)
	if len(lines) < 3 {
		fail("%s: not a recording (three lines)", file)
	}
	rec := recording{Initialize: lines[0], ToolsList: lines[1], ToolsCall: lines[2]}
	// Each answer split around its id: prefix + id + suffix.
	answer := func(result json.RawMessage) [2][]byte {
		return [2][]byte{[]byte(`{"jsonrpc":"2.0","id":`), append(append([]byte(`,"result":`), result...), "}\n"...)}
	}
	answers := map[string][2][]byte{
		"initialize": answer(rec.Initialize),
		"tools/list": answer(rec.ToolsList),
		"tools/call": answer(rec.ToolsCall),
		"ping":       answer(json.RawMessage(`{}`)),
	}
	// A long tools/list is served in pages of pageSize tools, as real
	// servers page theirs (some clients cannot take one 10 MB message).
	var pages [][2][]byte
	if len(rec.ToolsList) > 1<<20 {
		var list struct {
			Tools []json.RawMessage `json:"tools"`
		}
		check(json.Unmarshal(rec.ToolsList, &list))
		for i := 0; i < len(list.Tools); i += pageSize {
			page := map[string]any{"tools": list.Tools[i:min(i+pageSize, len(list.Tools))]}
			if i+pageSize < len(list.Tools) {
				page["nextCursor"] = fmt.Sprint(len(pages) + 1)
			}
			data, err := json.Marshal(page)
			check(err)
			pages = append(pages, answer(data))
		}
	}
	r := bufio.NewReaderSize(os.Stdin, 1<<16)
	w := bufio.NewWriterSize(os.Stdout, 1<<16)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Cursor string `json:"cursor"`
				} `json:"params"`
			}
			if json.Unmarshal(line, &req) == nil && req.ID != nil {
				a, ok := answers[req.Method]
				if req.Method == "tools/list" && pages != nil {
					n := 0
					fmt.Sscan(req.Params.Cursor, &n)
					a, ok = pages[min(n, len(pages)-1)], true
				}
				if ok {
					w.Write(a[0])
					w.Write(req.ID)
					w.Write(a[1])
				} else {
					fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"replay: no answer recorded for %s"}}`+"\n", req.ID, req.Method)
				}
				check(w.Flush())
			}
		}
		if errors.Is(err, io.EOF) {
			return
		}
		check(err)
	}
}

func client(tool string, args json.RawMessage, argv []string) {
	srv := startServer(argv, 64<<10)
	ask := func(method string, params any) int {
		srv.send(method, params)
		n := 0
		for {
			chunk, err := srv.out.ReadSlice('\n')
			n += len(chunk)
			if err == nil {
				return n // the answer (a server that logs to stdout is not what this measures)
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				fail("%s: %v", method, err)
			}
		}
	}
	ask("initialize", initializeParams)
	srv.initialized()
	ask("tools/list", map[string]any{})
	if n := ask("tools/call", map[string]any{"name": tool, "arguments": args}); n < 2 {
		fail("tools/call: no answer")
	}
	srv.in.Close()
	check(srv.cmd.Wait())
}

// initializeParams are the initialize request's parameters of record and
// client.
var initializeParams = map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "replay", "version": "1"}}

// stdioServer is a started stdio server as record and client speak to it.
type stdioServer struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	lastID int
}

// startServer starts argv with its stdout read through a buffer of
// bufSize bytes.
func startServer(argv []string, bufSize int) *stdioServer {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	check(err)
	out, err := cmd.StdoutPipe()
	check(err)
	check(cmd.Start())
	return &stdioServer{cmd: cmd, in: in, out: bufio.NewReaderSize(out, bufSize)}
}

// send writes the next request and returns its id.
func (s *stdioServer) send(method string, params any) int {
	s.lastID++
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.lastID, "method": method, "params": params})
	_, err := s.in.Write(append(msg, '\n'))
	check(err)
	return s.lastID
}

// initialized sends the notification that ends the handshake.
func (s *stdioServer) initialized() {
	_, err := s.in.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
	check(err)
}

func check(err error) {
	if err != nil {
		fail("%v", err)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "replay: "+format+"\n", args...)
	os.Exit(1)
}
