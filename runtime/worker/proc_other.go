//go:build !unix

package worker

func killedBySignal(interface{ Sys() any }) (string, bool) { return "", false }
