package demo

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const slackInstructions = "A demo Slack workspace with synthetic data (every person and message is fictional). " +
	"Channels: C123456 (#deployments), C234567 (#sales), C345678 (#general). " +
	"getChannelHistory returns the messages as an array, newest first; postMessage answers with JSON text. " +
	"A deployment is in progress in C123456: its bot posts progress as you poll the history."

// Defaults and bounds of getChannelHistory's limit.
const (
	defaultHistoryLimit = 20
	maxHistoryLimit     = 200
)

// deployChannelID is the channel whose history advances as it is polled.
const deployChannelID = "C123456"

// slackMessage is one message of a channel history.
type slackMessage struct {
	TS   string `json:"ts"`
	User string `json:"user"`
	Text string `json:"text"`
}

// scriptedMessage appears in a channel when its history has been read
// onCall times.
type scriptedMessage struct {
	onCall     int
	user, text string
}

type slackChannel struct {
	id, name     string
	messages     []slackMessage // oldest first
	historyCalls int
	script       []scriptedMessage // not yet posted, by onCall
}

// slackWorkspace is one slack server's state. Time is logical: every new
// message gets the next timestamp, so runs are reproducible.
type slackWorkspace struct {
	mu       sync.Mutex
	channels []*slackChannel
	clock    int64 // seconds of the next message
	seq      int   // makes every ts unique
}

func (w *slackWorkspace) stamp() string {
	w.seq++
	w.clock += 7
	return fmt.Sprintf("%d.%06d", w.clock, w.seq)
}

func (w *slackWorkspace) post(c *slackChannel, user, text string) slackMessage {
	m := slackMessage{TS: w.stamp(), User: user, Text: text}
	c.messages = append(c.messages, m)
	return m
}

// findChannel accepts an id (C123456) or a name (#sales or sales).
// Callers hold w.mu.
func (w *slackWorkspace) findChannel(ref string) (*slackChannel, error) {
	ref = strings.TrimSpace(ref)
	for _, c := range w.channels {
		if strings.EqualFold(ref, c.id) || strings.EqualFold(strings.TrimPrefix(ref, "#"), c.name) {
			return c, nil
		}
	}
	known := make([]string, len(w.channels))
	for i, c := range w.channels {
		known[i] = c.id + " (#" + c.name + ")"
	}
	return nil, fmt.Errorf("no channel %q; channels are %s", ref, strings.Join(known, ", "))
}

type historyInput struct {
	Channel string `json:"channel"`
	Limit   *int   `json:"limit"`
}

type postInput struct {
	Channel string `json:"channel"`
	Text    string `json:"text"`
}

type postResult struct {
	OK      bool   `json:"ok"`
	Channel string `json:"channel"`
	TS      string `json:"ts"`
}

// history returns the newest messages first, as an array (the article's
// polling loop calls messages.some(...) on the result). Reading the
// deployment channel advances its script first, so "deployment complete"
// shows up on the third read.
func (w *slackWorkspace) history(_ context.Context, in historyInput) (any, error) {
	if strings.TrimSpace(in.Channel) == "" {
		return nil, fmt.Errorf("channel is required; use a channel id such as %s", deployChannelID)
	}
	limit := defaultHistoryLimit
	if in.Limit != nil {
		limit = *in.Limit
	}
	if limit < 1 || limit > maxHistoryLimit {
		return nil, fmt.Errorf("limit %d is out of range; use 1 to %d (default %d)", limit, maxHistoryLimit, defaultHistoryLimit)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	c, err := w.findChannel(in.Channel)
	if err != nil {
		return nil, err
	}
	c.historyCalls++
	for len(c.script) > 0 && c.script[0].onCall <= c.historyCalls {
		w.post(c, c.script[0].user, c.script[0].text)
		c.script = c.script[1:]
	}
	n := min(limit, len(c.messages))
	out := make([]slackMessage, n)
	for i := range out {
		out[i] = c.messages[len(c.messages)-1-i]
	}
	return out, nil
}

func (w *slackWorkspace) postMessage(_ context.Context, in postInput) (any, error) {
	if strings.TrimSpace(in.Text) == "" {
		return nil, fmt.Errorf("text is empty; pass the message to post")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	c, err := w.findChannel(in.Channel)
	if err != nil {
		return nil, err
	}
	m := w.post(c, "mcpcode-agent", in.Text)
	return postResult{OK: true, Channel: c.id, TS: m.TS}, nil
}

// registerSlack adds the slack tools over a fresh workspace. Their input
// schemas are hand-written and their results JSON text, as in many real
// servers; getChannelHistory also declares an array output schema and sends
// the array as structured content (MCP allows any JSON value there since
// SEP-2106), which is how the article's polling loop uses it. postMessage
// declares no output schema, so programs get a ToolResult from it.
func registerSlack(s *mcp.Server) {
	w := newSlackWorkspace()
	addTextTool(s, &mcp.Tool{
		Name:  "getChannelHistory",
		Title: "Get channel history",
		Description: "Returns the most recent messages of a Slack channel, newest first, as an array of " +
			`{"ts": string, "user": string, "text": string}; a program can poll it until a message appears.`,
		InputSchema:  getChannelHistoryInput,
		OutputSchema: getChannelHistoryOutput,
		Annotations:  readOnly(),
	}, w.history)
	addTextTool(s, &mcp.Tool{
		Name:        "postMessage",
		Title:       "Post message",
		Description: `Posts a message to a Slack channel and returns JSON text: {"ok": true, "channel": string, "ts": string}.`,
		InputSchema: postMessageInput,
		Annotations: writes(false, false),
	}, w.postMessage)
}
