package generator

import (
	"regexp"
	"strings"
)

// exfilPatterns find a sentence that asks the model to send secrets
// somewhere: an imperative verb of sending ("include", "pass", "forward",
// "attach", "copy"...) that no negation precedes ("do not include"), a
// secret (API keys, access tokens, passwords, credentials, secrets,
// environment variables, the conversation, the system prompt, cookies),
// and what makes it an instruction rather than a description of the tool:
// whose secret it is ("the user's", "your", "all", "any"), where it should
// go (a field, parameter or argument; a URL), or that it be done silently.
// A sentence needs all three: "Sends a password reset link" (no owner, no
// destination) and "Do not include any API keys in your query" (negated)
// pass; see notExfiltrating in the tests.
type exfilPatterns struct{ verb, negation, secret, owner, target *regexp.Regexp }

// exfiltration returns the first sentence of text that asks to send
// secrets, or "".
func exfiltration(text string) string {
	p := exfil()
	for _, sentence := range sentences(text) {
		lower := strings.ToLower(sentence)
		if strings.ContainsAny(lower, "ſK") {
			lower = strings.NewReplacer("ſ", "s", "K", "k").Replace(lower)
		}
		verbs := p.verb.FindAllStringIndex(lower, -1)
		acting := false
		for _, v := range verbs {
			if !p.negation.MatchString(lower[:v[0]]) {
				acting = true
				break
			}
		}
		if !acting {
			continue
		}
		for _, sm := range p.secret.FindAllStringIndex(lower, -1) {
			if p.owner.MatchString(lower[:sm[0]]) || p.target.MatchString(lower) {
				return sentence
			}
		}
	}
	return ""
}

// sentences splits text where a sentence ends: ".", "!" or "?" followed by
// a space or the end, ";", or a line break.
func sentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		end := c == '\n' || c == ';' || ((c == '.' || c == '!' || c == '?') && (i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n'))
		if end {
			if s := strings.TrimSpace(text[start:i]); s != "" {
				out = append(out, s)
			}
			start = i + 1
		}
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}
