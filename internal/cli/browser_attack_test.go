package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBrowserCommandDoesNotRunTheURL: the login page's URL comes from the
// authorization server a server's metadata names, so it is hostile text;
// $BROWSER is a shell command ("%s" is replaced by the URL, else the URL
// follows it). Quoting the URL into the command line is undone by the
// person's own quotes ('%s' or "%s", both common), and then a "$(...)",
// a backquote or a ";" in the URL ran as a command. The URL goes to the
// shell as a parameter instead, never into the command's text.
func TestBrowserCommandDoesNotRunTheURL(t *testing.T) {
	dir := t.TempDir()
	pwned := filepath.Join(dir, "pwned")
	got := filepath.Join(dir, "got")
	script := filepath.Join(dir, "browser")
	writeFile(t, script, "#!/bin/sh\nprintf '%s\\n' \"$1\" >> "+shellQuote(got)+"\n")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	url := "https://as.example/authorize?response_type=code&x=$(touch${IFS}" + pwned + ")&y=`touch${IFS}" + pwned + "`&z=';touch${IFS}" + pwned + ";'&w=\";touch${IFS}" + pwned + ";\""
	for _, browser := range []string{script, script + " %s", script + " '%s'", script + ` "%s"`} {
		t.Setenv("BROWSER", browser)
		os.Remove(got)
		ta := newTestApp(t)
		if err := ta.cli.openURL(context.Background(), "crm", url); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			if _, err := os.Stat(got); err == nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond) // the browser command's other words, if any ran
		if _, err := os.Stat(pwned); err == nil {
			t.Fatalf("BROWSER=%s: the URL ran a command", browser)
		}
		data, err := os.ReadFile(got)
		if err != nil {
			t.Errorf("BROWSER=%s: the browser was not started: %v", browser, err)
			continue
		}
		if strings.Contains(browser, "%s") && strings.Contains(browser, "'%s'") {
			continue // the person's quotes hide the parameter: no URL, but nothing ran
		}
		if strings.TrimSuffix(string(data), "\n") != url {
			t.Errorf("BROWSER=%s: the browser got %q, want the URL", browser, data)
		}
	}
}

// TestBrowserOpensOnlyWebPages: a login page whose URL is not http or
// https (file:, a scheme some other program handles) is not handed to a
// browser or the system's opener, which would open a local file or start
// that program (rundll32's FileProtocolHandler runs a file: executable).
func TestBrowserOpensOnlyWebPages(t *testing.T) {
	dir := t.TempDir()
	got := filepath.Join(dir, "got")
	t.Setenv("BROWSER", "echo >> "+shellQuote(got))
	for _, url := range []string{"file:///etc/passwd", "FILE:///C:/Windows/System32/calc.exe", "ms-msdt:/id PCWDiagnostic", "smb://evil.example/share/x.exe", "vscode://x/y", "//evil.example/x", "/authorize"} {
		ta := newTestApp(t)
		err := ta.cli.openURL(context.Background(), "crm", url)
		if err == nil || !strings.Contains(err.Error(), "http") {
			t.Errorf("%s: %v, want an error that says only http and https pages are opened", url, err)
		}
	}
	time.Sleep(200 * time.Millisecond)
	if data, err := os.ReadFile(got); err == nil {
		t.Errorf("the browser was started with %q", data)
	}
}

// shellQuote quotes s for /bin/sh (tests' scripts).
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
