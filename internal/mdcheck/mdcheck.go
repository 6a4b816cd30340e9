// Package mdcheck reads Markdown the way a code host renders it, for
// tests: it parses a document as CommonMark with GitHub's extensions
// (tables, strikethrough, autolinks, task lists, footnotes) with goldmark,
// an implementation independent of the code that wrote the document, and
// reports what in it would act (links, images, raw HTML, ...) and which
// text would be read as prose rather than as code. Tests of the review
// card's Markdown use it to check that untrusted text stays inert.
package mdcheck

import (
	"fmt"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// Report is what a document holds, as a renderer sees it.
type Report struct {
	// Active lists every node that does more than show text: links,
	// autolinks, images, raw HTML, HTML blocks, tables, strikethrough,
	// task boxes, footnotes, link reference definitions used by a link.
	Active []string
	// Headings are the headings' texts, in order.
	Headings []string
	// Prose is the text a reader sees outside code (paragraphs, list
	// items, headings, quotes), one node a line.
	Prose string
	// Code is the text inside code spans and code blocks, one node a
	// line (a code block's lines as they are).
	Code string
	// CodeBlocks is the number of code blocks.
	CodeBlocks int
}

// Parse parses md as a code host would.
func Parse(md string) Report {
	src := []byte(md)
	g := goldmark.New(goldmark.WithExtensions(extension.GFM, extension.Footnote))
	doc := g.Parser().Parse(text.NewReader(src))
	var r Report
	var prose, code strings.Builder
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link, *ast.AutoLink, *ast.Image, *ast.RawHTML, *ast.HTMLBlock,
			*extast.Table, *extast.Strikethrough, *extast.TaskCheckBox,
			*extast.FootnoteLink, *extast.FootnoteBacklink, *extast.Footnote, *extast.FootnoteList:
			r.Active = append(r.Active, fmt.Sprintf("%s %q", n.Kind(), nodeText(n, src)))
			return ast.WalkContinue, nil
		case *ast.Heading:
			r.Headings = append(r.Headings, nodeText(n, src))
		case *ast.CodeSpan:
			code.WriteString(nodeText(n, src) + "\n")
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			r.CodeBlocks++
			lines := n.Lines()
			for i := 0; i < lines.Len(); i++ {
				seg := lines.At(i)
				code.Write(seg.Value(src))
			}
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			prose.Write(n.Segment.Value(src))
			prose.WriteByte('\n')
		case *ast.String:
			prose.Write(n.Value)
			prose.WriteByte('\n')
		}
		return ast.WalkContinue, nil
	})
	r.Prose, r.Code = prose.String(), code.String()
	return r
}

// nodeText is the text of a node's inline children (or its lines).
func nodeText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
		case *ast.String:
			b.Write(c.Value)
		case *ast.RawHTML:
			for i := 0; i < c.Segments.Len(); i++ {
				seg := c.Segments.At(i)
				b.Write(seg.Value(src))
			}
		}
		return ast.WalkContinue, nil
	})
	if b.Len() == 0 && n.Type() == ast.TypeBlock {
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			b.Write(seg.Value(src))
		}
	}
	return b.String()
}
