//go:build !unix

package experiment

import "os/exec"

// ownGroup does nothing: without Unix process groups the server is one
// process (start it directly rather than through "go run").
func ownGroup(*exec.Cmd) {}

// terminate kills the process: Windows has no SIGTERM to send.
func terminate(cmd *exec.Cmd) { cmd.Process.Kill() }

// kill kills the process.
func kill(cmd *exec.Cmd) { cmd.Process.Kill() }
