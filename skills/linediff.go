package skills

import "fmt"

// maxDiffCells bounds the work of a line diff: past it, the differing
// middle of two files is shown as removed and added whole.
const maxDiffCells = 4_000_000

// unifiedDiff compares two files' lines and returns a unified diff with
// context lines of context around each change ("@@ -a,b +c,d @@" headers,
// then lines starting with ' ', '-' or '+'), and the numbers of lines
// added and removed. Common lines at the start and end are matched first;
// the middle by longest common subsequence.
func unifiedDiff(a, b []string, context int) (lines []string, added, removed int) {
	ops := diffOps(a, b)
	for _, op := range ops {
		switch op.kind {
		case '+':
			added++
		case '-':
			removed++
		}
	}
	if added == 0 && removed == 0 {
		return nil, 0, 0
	}
	// Group the ops into hunks: runs of changes with up to 2*context equal
	// lines between them.
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(0, i-context)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j
				continue
			}
			if j-end > 2*context {
				break
			}
		}
		end = min(len(ops), end+context+1)
		hunk := ops[start:end]
		aStart, bStart := hunk[0].a, hunk[0].b
		var aLen, bLen int
		for _, op := range hunk {
			if op.kind != '+' {
				aLen++
			}
			if op.kind != '-' {
				bLen++
			}
		}
		lines = append(lines, fmt.Sprintf("@@ -%s +%s @@", hunkRange(aStart, aLen), hunkRange(bStart, bLen)))
		for _, op := range hunk {
			lines = append(lines, string(op.kind)+op.text)
		}
		i = end
	}
	return lines, added, removed
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// diffOp is one line of an edit script: ' ' kept, '-' removed, '+' added;
// a and b are the 0-based positions in each file where it stands.
type diffOp struct {
	kind byte
	text string
	a, b int
}

func diffOps(a, b []string) []diffOp {
	var ops []diffOp
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		ops = append(ops, diffOp{' ', a[pre], pre, pre})
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	ops = append(ops, middleOps(ma, mb, pre)...)
	for i := 0; i < suf; i++ {
		ai, bi := len(a)-suf+i, len(b)-suf+i
		ops = append(ops, diffOp{' ', a[ai], ai, bi})
	}
	return ops
}

// middleOps diffs the differing middle (offset lines into both files) by
// longest common subsequence, or as removed and added whole when it is
// too large.
func middleOps(a, b []string, offset int) []diffOp {
	var ops []diffOp
	if len(a)*len(b) > maxDiffCells {
		for i, l := range a {
			ops = append(ops, diffOp{'-', l, offset + i, offset})
		}
		for j, l := range b {
			ops = append(ops, diffOp{'+', l, offset + len(a), offset + j})
		}
		return ops
	}
	// lcs[i][j] is the length of the LCS of a[i:] and b[j:].
	w := len(b) + 1
	lcs := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i], offset + i, offset + j})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[(i+1)*w+j] >= lcs[i*w+j+1]):
			ops = append(ops, diffOp{'-', a[i], offset + i, offset + j})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j], offset + i, offset + j})
			j++
		}
	}
	return ops
}
