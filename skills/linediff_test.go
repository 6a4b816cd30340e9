package skills

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestUnifiedDiff(t *testing.T) {
	var a []string
	for i := 1; i <= 20; i++ {
		a = append(a, fmt.Sprint("line ", i))
	}
	b := append([]string(nil), a...)
	b[1] = "line 2 changed"
	b = append(b[:15], append([]string{"inserted"}, b[15:]...)...)
	b = b[:len(b)-1] // line 20 removed
	got, added, removed := unifiedDiff(a, b, 2)
	want := []string{
		"@@ -1,4 +1,4 @@", " line 1", "-line 2", "+line 2 changed", " line 3", " line 4",
		"@@ -14,7 +14,7 @@", " line 14", " line 15", "+inserted", " line 16", " line 17", " line 18", " line 19", "-line 20",
	}
	if !reflect.DeepEqual(got, want) || added != 2 || removed != 2 {
		t.Errorf("diff (+%d -%d):\n%s\nwant:\n%s", added, removed, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got, _, _ := unifiedDiff(nil, []string{"a", "b"}, 3); !reflect.DeepEqual(got, []string{"@@ -0,0 +1,2 @@", "+a", "+b"}) {
		t.Errorf("new file: %q", got)
	}
	if got, _, _ := unifiedDiff(a, a, 3); got != nil {
		t.Errorf("no change: %q", got)
	}
	// Past the work bound the middle is shown replaced whole, still right.
	big := make([]string, 3000)
	other := make([]string, 3000)
	for i := range big {
		big[i], other[i] = fmt.Sprint("a", i), fmt.Sprint("b", i)
	}
	if _, added, removed := unifiedDiff(big, other, 3); added != 3000 || removed != 3000 {
		t.Errorf("large diff: +%d -%d", added, removed)
	}
}
