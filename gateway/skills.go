package gateway

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// syncSkills serves every approved skill as a tool: added, removed or
// replaced as the skills on disk change.
func (g *Gateway) syncSkills() error {
	list, err := g.ws.SkillTools()
	if err != nil {
		return fmt.Errorf("listing the approved skills: %w", err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	want := map[string]app.SkillTool{}
	for _, s := range list {
		if codeToolNames[s.Name] && g.opts.Tools == ToolsCode {
			g.log.Warn("skill not served: its name is one of the gateway's own tools", "skill", s.Name)
			continue
		}
		want[s.Name] = s
	}
	var gone []string
	for name := range g.skillTools {
		if _, ok := want[name]; !ok {
			gone = append(gone, name)
			delete(g.skillTools, name)
		}
	}
	if len(gone) > 0 {
		g.server.RemoveTools(gone...)
	}
	for name, s := range want {
		fp, _ := json.Marshal(s)
		if g.skillTools[name] == string(fp) {
			continue
		}
		schema := s.InputSchema
		var probe map[string]any
		if json.Unmarshal(schema, &probe) != nil || probe["type"] != "object" {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		tool := &mcp.Tool{
			Name:        s.Name,
			Description: s.Description,
			InputSchema: schema,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: !s.Write, OpenWorldHint: boolPtr(true)},
		}
		if s.Write {
			tool.Annotations.DestructiveHint = boolPtr(true)
		}
		g.server.AddTool(tool, g.skillHandler(name))
		g.skillTools[name] = string(fp)
	}
	return nil
}

// skillHandler runs an approved skill with the call's arguments as input.
func (g *Gateway) skillHandler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		input := req.Params.Arguments
		if len(input) == 0 {
			input = json.RawMessage(`{}`)
		}
		g.mu.Lock()
		version := g.skillTools[name] // what was approved, as served
		g.mu.Unlock()
		return g.run(ctx, req, app.RunRequest{Skill: name, Input: input}, 0, version)
	}
}
