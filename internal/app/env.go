package app

import (
	"sort"
	"strings"
)

// BaseEnv picks the variables every stdio server gets from the host: what
// programs need to find executables, a home, a locale, temp files and
// proxies. Everything else (tokens, keys) must be given in the entry's
// "env" in mcp.json, so that a secret reaches only the server it is for.
func BaseEnv(environ []string) []string {
	keep := map[string]bool{
		"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true,
		"LANG": true, "LANGUAGE": true, "TERM": true, "TMPDIR": true, "TZ": true,
		"HTTP_PROXY": true, "HTTPS_PROXY": true, "NO_PROXY": true,
		"http_proxy": true, "https_proxy": true, "no_proxy": true,
		"SSL_CERT_FILE": true, "SSL_CERT_DIR": true, "NODE_EXTRA_CA_CERTS": true,
		"SYSTEMROOT": true, "APPDATA": true, "LOCALAPPDATA": true, "USERPROFILE": true, "PATHEXT": true, "COMSPEC": true,
	}
	var out []string
	for _, kv := range environ {
		k, _, ok := strings.Cut(kv, "=")
		if ok && (keep[k] || strings.HasPrefix(k, "LC_") || strings.HasPrefix(k, "XDG_")) {
			out = append(out, kv)
		}
	}
	sort.Strings(out)
	return out
}
