package machine

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
)

// TestProcessCPUTimeOf reads this process's CPU time by its pid and fails
// for a pid that does not exist.
func TestProcessCPUTimeOf(t *testing.T) {
	d, err := ProcessCPUTimeOf(os.Getpid())
	if err != nil || d < 0 {
		t.Errorf("ProcessCPUTimeOf(self) = %v, %v; want a time and no error", d, err)
	}
	if d, err := ProcessCPUTimeOf(1 << 30); err == nil {
		t.Errorf("ProcessCPUTimeOf(no such pid) = %v, nil; want an error", d)
	}
}

// TestExitedUsage checks that a finished child's usage is read from its
// ProcessState, with a peak resident set where getrusage gives one.
func TestExitedUsage(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the peak resident set is absent on Windows")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	u := ExitedUsage(cmd.ProcessState)
	if u.User < 0 || u.System < 0 || u.PeakRSSBytes == nil || *u.PeakRSSBytes < 1<<20 {
		t.Errorf("ExitedUsage(a Go test binary) = %+v; want CPU times and a peak RSS of at least 1 MB", u)
	}
}
