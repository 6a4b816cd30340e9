// Package privacy keeps personal data out of what a run shows a model.
//
// Detectors find emails, phone numbers (E.164 and common national formats),
// payment card numbers (Luhn and issuer prefixes), IBANs (country length and
// mod-97 checksum), IP addresses, values of custom regular expressions, and
// person names learned from tool results (values under keys such as name,
// firstName or lastName). A Session, one per run, wraps the run's
// mcptool.Caller: it learns the values in every tool result together with
// the server they came from, replaces tokens such as "[EMAIL_1]" in tool-call
// arguments by the values they stand for before anything is sent, and
// refuses a call whose arguments carry a value that the flow rules do not let
// go to that server. When the run ends, Session.Finish replaces every such
// value in what leaves the run (console output, the result, the error) by its
// token, and records the values in the workspace's Store.
//
// The Store maps values to stable tokens: the same value gets the same token
// within a workspace. Token numbers are never reused, even after Forget, so
// an old token can never come to stand for another person's data. The store
// is a 0600 file under .mcpcode/; nothing in this package prints its values.
//
// Detection is by value: a program that reshapes a value (spells an email
// backwards, splits a name) defeats it. Tokenizing keeps data out of the
// model's context in the ordinary case; it is not a boundary against a
// program written to leak.
package privacy
