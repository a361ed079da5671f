// Package child starts, holds to CPUs, reads and stops child processes:
//
//	p, url, err := child.StartAnnounced(child.Spec{Argv: argv, CPUs: []int{1}, Pin: true}, "board: ", 30*time.Second)
//	cpu, err := p.CPUTime()
//	err = p.Stop(5 * time.Second)
//
// They are the servers an experiment measures, and the board, the
// yardstick and the load generators of "loadtest overhead". It is the one place of the module that pins a
// process (or a thread: PinThread, HoldSelf) to CPUs.
//
// A Process is started from a Spec, waited for or stopped (SIGTERM, then
// SIGKILL after a timeout; on Windows, which has no SIGTERM, it is killed
// at once), and read: its CPU time while it runs and its usage once it has
// exited (package machine reads both).
package child

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"time"

	"bbslab/machine"
)

// A Spec describes a child process to start.
type Spec struct {
	// Argv is the program and its arguments.
	Argv []string
	// Dir is its working directory ("" for this process's).
	Dir string
	// Env is added to this process's environment (KEY=VALUE; the last
	// of a key wins).
	Env []string
	// Stdout and Stderr receive its output; nil discards it.
	Stdout, Stderr io.Writer
	// CPUs are the CPUs to hold it to; none leaves it to the OS.
	CPUs []int
	// Pin pins it to CPUs where the system allows it; without Pin, or
	// where pinning fails, its GOMAXPROCS is capped instead (Hold).
	Pin bool
	// OwnGroup starts it in a process group of its own on Unix, so that
	// the signals reach its own children too ("go run" and the program
	// it runs). Elsewhere the process alone is signalled.
	OwnGroup bool
}

// A Process is a started child.
type Process struct {
	// Hold says how the child is held to its CPUs.
	Hold Hold

	cmd   *exec.Cmd
	group bool
	done  chan struct{}
	err   error // set when done is closed
}

// Start starts the child s describes, held to its CPUs. The error is
// exec.Cmd.Start's, which names the program.
func Start(s Spec) (*Process, error) {
	if len(s.Argv) == 0 {
		return nil, errors.New("no command to start")
	}
	cmd := exec.Command(s.Argv[0], s.Argv[1:]...)
	cmd.Dir = s.Dir
	cmd.Env = append(os.Environ(), s.Env...)
	cmd.Stdout, cmd.Stderr = s.Stdout, s.Stderr
	if s.OwnGroup {
		ownGroup(cmd)
	}
	p := &Process{cmd: cmd, group: s.OwnGroup, done: make(chan struct{}), Hold: Hold{CPUs: s.CPUs}}
	var err error
	switch {
	case len(s.CPUs) == 0:
		err = cmd.Start()
	case !s.Pin:
		p.Hold.capChild(cmd, s.Env, ErrPinOff)
		err = cmd.Start()
	default:
		// Pin this OS thread, start the child from it (a child inherits
		// the affinity of the thread that starts it), then restore.
		runtime.LockOSThread()
		restore, perr := pinThread(s.CPUs)
		if perr != nil {
			p.Hold.capChild(cmd, s.Env, perr)
		} else {
			p.Hold.Pinned = true
		}
		err = cmd.Start()
		if restore != nil {
			restore()
		}
		runtime.UnlockOSThread()
	}
	if err != nil {
		return nil, err
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Pid is the child's process ID.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited is closed when the child has exited.
func (p *Process) Exited() <-chan struct{} { return p.done }

// Err is how the child exited (exec.Cmd.Wait's error); read it once
// Exited is closed.
func (p *Process) Err() error { return p.err }

// Wait waits for the child to exit and returns Err. When ctx ends first,
// it kills the child (as exec.CommandContext does) and returns ctx's
// error.
func (p *Process) Wait(ctx context.Context) error {
	select {
	case <-p.done:
		return p.err
	case <-ctx.Done():
		p.kill()
		<-p.done
		return ctx.Err()
	}
}

// Stop asks the child to end (SIGTERM; on Windows it is killed at once),
// waits up to timeout, then kills it. It returns an error when the child
// had to be killed; stopping a child that has exited does nothing.
func (p *Process) Stop(timeout time.Duration) error {
	select {
	case <-p.done:
		return nil
	default:
	}
	p.terminate()
	select {
	case <-p.done:
		return nil
	case <-time.After(timeout):
		p.kill()
		<-p.done
		return fmt.Errorf("did not stop within %v of SIGTERM and was killed", timeout)
	}
}

// CPUTime is the CPU time, user and system, that the running child has
// used so far.
func (p *Process) CPUTime() (time.Duration, error) { return machine.ProcessCPUTimeOf(p.Pid()) }

// Usage is the exited child's CPU time and peak resident set; call it
// once Exited is closed.
func (p *Process) Usage() machine.ProcessUsage { return machine.ExitedUsage(p.cmd.ProcessState) }
