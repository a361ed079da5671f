//go:build !unix

package main

import "os"

// dumpSignals is empty off Unix, which has no SIGUSR1: the goroutine dump
// is at /debug/pprof/goroutine on the admin server instead.
var dumpSignals []os.Signal
