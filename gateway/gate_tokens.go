package gateway

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpcode/mcpcode/internal/mcptool"
)

// maxNotedTokens bounds the tokens the write question names.
const maxNotedTokens = 10

// tokenNote is what the write question adds when privacy tokenization put
// real values in place of tokens the program wrote (privacy.Session marks
// the call's context): the question shows, and the person allows, exactly
// what the server gets, which are the real values; the note names the
// tokens the program wrote and says that the model saw only those.
func tokenNote(ctx context.Context, server string) string {
	tokens := mcptool.SubstitutedOf(ctx)
	if len(tokens) == 0 {
		return ""
	}
	shown := strings.Join(tokens[:min(len(tokens), maxNotedTokens)], ", ")
	if len(tokens) > maxNotedTokens {
		shown += fmt.Sprintf(" and %d more", len(tokens)-maxNotedTokens)
	}
	return fmt.Sprintf("\n\nPrivacy tokenization is on: the program wrote the tokens %s, and mcpcode put the real value of each in its place. "+
		"The arguments above show those real values, which is what %s receives; the model saw only the tokens.", shown, quoteName(server))
}
