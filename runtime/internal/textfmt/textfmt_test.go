package textfmt

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestBytesAndSize(t *testing.T) {
	t.Parallel()
	tests := []struct{ got, want string }{
		{Bytes(1536), "1536 bytes"},
		{Bytes(3 << 30), "3 GiB"},
		{Bytes(64 << 20), "64 MiB"},
		{Bytes(4 << 10), "4 KiB"},
		{Bytes(100), "100 bytes"},
		{Size(4<<20 + 1), "4.0 MiB"},
		{Size(1000), "1000 bytes"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestTruncateKeepsCharacters(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("é", 10) // 2 bytes each
	got := Truncate(s, 5)
	if !strings.HasPrefix(got, "éé...") || !strings.Contains(got, "[mcpcode: 16 more bytes omitted]") || !utf8.ValidString(got) {
		t.Errorf("Truncate = %q", got)
	}
	if got := Truncate("short", 5); got != "short" {
		t.Errorf("Truncate of a short text = %q", got)
	}
}
