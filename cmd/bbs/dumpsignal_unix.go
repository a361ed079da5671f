//go:build unix

package main

import (
	"os"
	"syscall"
)

// dumpSignals are the signals that make the server write a goroutine dump
// to stderr (kill -USR1, as the JVM's kill -3).
var dumpSignals = []os.Signal{syscall.SIGUSR1}
