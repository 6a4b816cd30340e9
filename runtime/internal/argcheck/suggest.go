package argcheck

import (
	"slices"
	"strings"
)

// editDistance is the optimal-string-alignment distance between a and b
// (insertions, deletions, substitutions and adjacent transpositions),
// compared case-insensitively.
func editDistance(a, b string) int {
	x, y := []rune(strings.ToLower(a)), []rune(strings.ToLower(b))
	prev2 := make([]int, len(y)+1)
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(y)]
}

// Closest returns up to n candidates nearest to name, nearest first:
// those within an edit distance of a third of the name's length (at least
// 2), or that contain it or are contained in it, ignoring case. Ties keep
// alphabetical order, so the answer does not depend on the candidates' order.
func Closest(name string, candidates []string, n int) []string {
	type scored struct {
		name string
		d    int
	}
	var out []scored
	limit := max(2, len([]rune(name))/3)
	lname := strings.ToLower(name)
	for _, c := range candidates {
		d := editDistance(name, c)
		lc := strings.ToLower(c)
		if d <= limit || (len(lname) >= 3 && (strings.Contains(lc, lname) || strings.Contains(lname, lc))) {
			out = append(out, scored{c, d})
		}
	}
	slices.SortStableFunc(out, func(a, b scored) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.name, b.name)
	})
	names := make([]string, 0, n)
	for i := 0; i < len(out) && i < n; i++ {
		names = append(names, out[i].name)
	}
	return names
}

// likelyTypo reports whether got is probably a misspelling of want: the same
// but for case, or within a small edit distance for names long enough that
// such a distance is meaningful.
func likelyTypo(got, want string) bool {
	if got == want {
		return false
	}
	if strings.EqualFold(got, want) {
		return true
	}
	n := min(len([]rune(got)), len([]rune(want)))
	switch {
	case n < 4:
		return false
	case n < 8:
		return editDistance(got, want) <= 1
	}
	return editDistance(got, want) <= 2
}
