//go:build !unix

package child

import "os/exec"

// ownGroup does nothing: without Unix process groups the child is one
// process (start it directly rather than through "go run").
func ownGroup(*exec.Cmd) {}

// terminate kills the child: Windows has no SIGTERM to send.
func (p *Process) terminate() { p.cmd.Process.Kill() }

// kill kills the child.
func (p *Process) kill() { p.cmd.Process.Kill() }
