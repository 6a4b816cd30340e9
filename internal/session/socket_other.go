//go:build !linux

package session

import (
	"context"
	"errors"
	"net"
	"os"
)

// Supported says whether sessions work on this system.
const Supported = false

var errUnsupported = errors.New("workspace sessions need Linux (the peer's user is read with SO_PEERCRED)")

func fileID(os.FileInfo) string { return "?" }

func ownedByMe(os.FileInfo) error { return errUnsupported }

// Listen fails here: see Supported.
func Listen(string, func(error)) (net.Listener, error) { return nil, errUnsupported }

// Dial fails here: see Supported.
func Dial(context.Context, string) (net.Conn, error) { return nil, errUnsupported }
