package gateway

import (
	"context"
	"fmt"
	"mime"
	"path"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// resourceScheme is the URI scheme of the tree's files as resources:
// mcpcode://servers/github/createIssue.ts.
const resourceScheme = "mcpcode://"

// addResourceTemplate lets hosts read any file of the tree by URI, also
// ones that appeared after the last list.
func (g *Gateway) addResourceTemplate() {
	g.server.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "tree",
		Title:       "A file of the generated tree or of an approved skill",
		Description: "mcpcode://servers/<server>/<tool>.ts, mcpcode://servers/README.md, mcpcode://skills/<name>/SKILL.md",
		URITemplate: resourceScheme + "{+path}",
	}, g.readResource)
}

// syncResources offers every readable file of the tree as a resource.
func (g *Gateway) syncResources() error {
	files, err := g.ws.TreeFiles()
	if err != nil {
		return fmt.Errorf("listing the tree: %w", err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	want := map[string]bool{}
	for _, f := range files {
		want[resourceScheme+f] = true
	}
	var gone []string
	for uri := range g.resources {
		if !want[uri] {
			gone = append(gone, uri)
			delete(g.resources, uri)
		}
	}
	if len(gone) > 0 {
		g.server.RemoveResources(gone...)
	}
	for _, f := range files {
		uri := resourceScheme + f
		if g.resources[uri] {
			continue
		}
		g.server.AddResource(&mcp.Resource{URI: uri, Name: f, MIMEType: mimeOf(f)}, g.readResource)
		g.resources[uri] = true
	}
	return nil
}

func mimeOf(p string) string {
	switch path.Ext(p) {
	case ".ts":
		return "text/x-typescript"
	case ".md":
		return "text/markdown"
	case ".json":
		return "application/json"
	}
	if t := mime.TypeByExtension(path.Ext(p)); t != "" {
		return t
	}
	return "text/plain"
}

func (g *Gateway) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	p, ok := strings.CutPrefix(uri, resourceScheme)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	content, entries, err := g.ws.ReadTree(p)
	if err != nil || entries != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mimeOf(p), Text: string(content)}}}, nil
}

// maxCompletions is the most values one completion returns (the protocol's
// limit).
const maxCompletions = 100

// complete answers completion/complete: for the tree's resource template,
// the paths of the tree's files that start with what was typed; for any
// other reference (mcpcode serves no prompts), no values.
func (g *Gateway) complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	p := req.Params
	if p == nil || p.Ref == nil || p.Ref.Type != "ref/resource" || p.Ref.URI != resourceScheme+"{+path}" || p.Argument.Name != "path" || g.opts.Tools != ToolsCode {
		return res, nil
	}
	files, err := g.ws.TreeFiles()
	if err != nil {
		return nil, fmt.Errorf("listing the tree: %w", err)
	}
	for _, f := range files {
		if !strings.HasPrefix(f, p.Argument.Value) {
			continue
		}
		res.Completion.Total++
		if len(res.Completion.Values) < maxCompletions {
			res.Completion.Values = append(res.Completion.Values, f)
		}
	}
	res.Completion.HasMore = res.Completion.Total > len(res.Completion.Values)
	return res, nil
}
