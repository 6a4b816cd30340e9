// Package textfmt words sizes and cuts text for the messages of the
// runtime, its pre-check and its worker processes, so that all of them say
// "1 MiB" and cut a long message the same way.
package textfmt

import (
	"fmt"
	"unicode/utf8"
)

const (
	kib = 1 << 10
	mib = 1 << 20
	gib = 1 << 30
)

// Bytes renders a byte count in the largest binary unit that divides it
// ("256 MiB", "64 KiB", "1536 bytes"): the form limits are stated in.
func Bytes(n int64) string {
	switch {
	case n >= gib && n%gib == 0:
		return fmt.Sprintf("%d GiB", n/gib)
	case n >= mib && n%mib == 0:
		return fmt.Sprintf("%d MiB", n/mib)
	case n >= kib && n%kib == 0:
		return fmt.Sprintf("%d KiB", n/kib)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Size renders a measured size: MiB with one decimal from 1 MiB up
// ("4.0 MiB"), else bytes.
func Size(n int64) string {
	if n >= mib {
		return fmt.Sprintf("%.1f MiB", float64(n)/mib)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Truncate cuts s to at most max bytes, never inside a UTF-8 character,
// and appends a marker saying how many bytes were left out; s is returned
// as is when it is not longer than max.
func Truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := s[:max]
	// Drop a character the cut split in two.
	for i := len(cut) - 1; i >= 0 && i >= len(cut)-utf8.UTFMax; i-- {
		if utf8.RuneStart(cut[i]) {
			if !utf8.FullRuneInString(cut[i:]) {
				cut = cut[:i]
			}
			break
		}
	}
	return cut + fmt.Sprintf("... [mcpcode: %d more bytes omitted]", len(s)-len(cut))
}
