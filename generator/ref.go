package generator

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// resolve finds the schema a $ref points to inside the current document.
// Only local refs resolve: "#", JSON pointers "#/…" (percent-encoded, with
// ~0/~1 escapes), and refs whose base is the document's own "$id". Anything
// else (http:, https:, file:, relative files, anchors) is an error: remote
// schemas are never fetched.
func (c *converter) resolve(ref string) (*value, error) {
	if r, ok := c.refs[ref]; ok {
		return r.target, r.err
	}
	target, err := c.resolveUncached(ref)
	c.refs[ref] = refResult{target, err}
	return target, err
}

func (c *converter) resolveUncached(ref string) (*value, error) {
	shown := jsQuote(cutBytes(ref, 200))
	base, frag, hasFrag := strings.Cut(ref, "#")
	if base != "" && base != c.root.getString("$id") {
		return nil, fmt.Errorf("$ref %s points outside this schema and is not fetched", shown)
	}
	if !hasFrag || frag == "" {
		return c.root, nil
	}
	decoded, err := url.PathUnescape(frag)
	if err != nil {
		return nil, fmt.Errorf("$ref %s is not a valid JSON pointer", shown)
	}
	if !strings.HasPrefix(decoded, "/") {
		return nil, fmt.Errorf("$ref %s uses an anchor, which is not supported", shown)
	}
	node := c.root
	for _, raw := range strings.Split(decoded[1:], "/") {
		seg, err := unescapePointerSegment(raw)
		if err != nil {
			return nil, fmt.Errorf("$ref %s is not a valid JSON pointer", shown)
		}
		switch node.kind {
		case jsonObject:
			node = node.get(seg)
		case jsonArray:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(node.items) || (len(seg) > 1 && seg[0] == '0') {
				node = nil
			} else {
				node = node.items[i]
			}
		default:
			node = nil
		}
		if node == nil {
			return nil, fmt.Errorf("$ref %s points to nothing in this schema", shown)
		}
	}
	return node, nil
}

// unescapePointerSegment undoes JSON pointer escapes: "~1" → "/", "~0" → "~".
func unescapePointerSegment(seg string) (string, error) {
	if !strings.Contains(seg, "~") {
		return seg, nil
	}
	var sb strings.Builder
	for i := 0; i < len(seg); i++ {
		if seg[i] != '~' {
			sb.WriteByte(seg[i])
			continue
		}
		if i+1 >= len(seg) || (seg[i+1] != '0' && seg[i+1] != '1') {
			return "", fmt.Errorf("bad escape in JSON pointer segment %q", seg)
		}
		if seg[i+1] == '0' {
			sb.WriteByte('~')
		} else {
			sb.WriteByte('/')
		}
		i++
	}
	return sb.String(), nil
}
