//go:build unix

package child

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// terminate sends SIGTERM to the child, or to its process group.
func (p *Process) terminate() { p.signal(syscall.SIGTERM) }

// kill sends SIGKILL to the child, or to its process group.
func (p *Process) kill() { p.signal(syscall.SIGKILL) }

func (p *Process) signal(sig syscall.Signal) {
	if p.group {
		syscall.Kill(-p.cmd.Process.Pid, sig)
		return
	}
	p.cmd.Process.Signal(sig)
}
