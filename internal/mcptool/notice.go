package mcptool

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
)

// Notice kinds.
const (
	// NoticeProgress is a server's progress notification about a call.
	NoticeProgress = "progress"
	// NoticeLog is a log message a server sent while a call was in
	// progress.
	NoticeLog = "log"
)

// Notice is a notification a server sent while serving a call: its
// progress, or a log message. The JSON names are MCP's.
type Notice struct {
	Server string `json:"server"`
	Kind   string `json:"kind"`
	// Progress, Total (0 when unknown) and Message of a progress notice.
	Progress float64 `json:"progress,omitempty"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
	// Level, Logger and Data of a log notice (Data is any JSON).
	Level  string          `json:"level,omitempty"`
	Logger string          `json:"logger,omitempty"`
	Data   json.RawMessage `json:"data,omitempty"`
}

// Text is how the notice shows in a run's output, marked as coming from
// its server: "[server progress] 3/10 message" or "[server level logger]
// data" (data that is a JSON string shown as its text).
func (n Notice) Text() string {
	if n.Kind == NoticeProgress {
		s := "[" + n.Server + " progress] " + strconv.FormatFloat(n.Progress, 'f', -1, 64)
		if n.Total > 0 {
			s += "/" + strconv.FormatFloat(n.Total, 'f', -1, 64)
		}
		if n.Message != "" {
			s += " " + n.Message
		}
		return s
	}
	text := string(n.Data)
	var str string
	if json.Unmarshal(n.Data, &str) == nil {
		text = str
	}
	level := n.Level
	if n.Logger != "" {
		level += " " + n.Logger
	}
	return "[" + n.Server + " " + level + "] " + strings.TrimRight(text, "\n")
}

// NoticeSink receives the notices servers send about calls. One sink
// stands for one requester (a run): a log message a server sends while
// several calls of the same run are in progress reaches the run once.
type NoticeSink struct {
	// Send is called on the Caller's goroutines; it must not block.
	Send func(Notice)
}

type noticesKey struct{}

// WithNotices returns ctx carrying the sink that receives the notices
// servers send about the calls made with it. A Caller that cannot deliver
// notices ignores it.
func WithNotices(ctx context.Context, s *NoticeSink) context.Context {
	return context.WithValue(ctx, noticesKey{}, s)
}

// NoticesOf returns the sink ctx carries, nil when none.
func NoticesOf(ctx context.Context) *NoticeSink {
	s, _ := ctx.Value(noticesKey{}).(*NoticeSink)
	return s
}
