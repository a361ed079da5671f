package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The bbs binary for tests that run the server as a child process (a
// SIGTERM, a SIGKILL, a server that does not share the test's CPU time and
// race detector). Without -race it is this test binary, run as the command
// (childEnv): no second link, which took 7-25 s of a short run on a busy
// machine. With -race it is built once per test binary, without -race.
var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

// childEnv, set to 1, makes the test binary run as the bbs command.
const childEnv = "BBS_TEST_RUN_AS_BBS"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		main()
		os.Exit(0)
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// bbsBinary returns the path of a bbs command: this test binary without
// -race, else cmd/bbs (this package) built once.
func bbsBinary(t *testing.T) string {
	t.Helper()
	if !raceEnabled {
		if p, err := os.Executable(); err == nil {
			return p
		}
	}
	binOnce.Do(func() {
		goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
		if p, err := exec.LookPath("go"); err == nil {
			goTool = p
		}
		if binDir, binErr = os.MkdirTemp("", "bbs-bin-"); binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "bbs")
		out, err := exec.Command(goTool, "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// child is the bbs binary running as a child process.
type child struct {
	cmd    *exec.Cmd
	board  string
	admin  string
	done   chan error
	stderr *tail
}

// startChild runs the bbs binary with args and waits until it prints its
// URLs (its admin URL too unless -admin-addr is empty). The process is
// killed at cleanup if it still runs.
func startChild(t *testing.T, args ...string) *child {
	t.Helper()
	c, err := startChildErr(t, bbsBinary(t), args...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// startChildErr is startChild for any goroutine: it reports failure as an
// error instead of ending the test.
func startChildErr(t *testing.T, bin string, args ...string) (*child, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), childEnv+"=1") // for this test binary as bbs
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c := &child{cmd: cmd, done: make(chan error, 1), stderr: &tail{}}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	wantAdmin := true
	for i, a := range args {
		if a == "-admin-addr" && i+1 < len(args) && args[i+1] == "" {
			wantAdmin = false
		}
	}
	urls := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			if u, ok := strings.CutPrefix(line, "board: "); ok {
				c.board = u
				if !wantAdmin {
					close(urls)
				}
			}
			if u, ok := strings.CutPrefix(line, "admin: "); ok && wantAdmin {
				c.admin = strings.TrimSuffix(u, "/")
				close(urls)
			}
		}
		io.Copy(io.Discard, out)
		c.done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		if cmd.Process.Signal(syscall.Signal(0)) == nil {
			cmd.Process.Kill()
		}
	})
	select {
	case <-urls:
	case err := <-c.done:
		return nil, fmt.Errorf("bbs %q exited before serving: %v\n%s", args, err, c.stderr)
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		return nil, fmt.Errorf("bbs %q did not print its URLs in 60 s\n%s", args, c.stderr)
	}
	return c, nil
}

// signal sends sig and waits for the process to exit, returning its error
// (nil for exit code 0).
func (c *child) signal(sig syscall.Signal) error {
	c.cmd.Process.Signal(sig)
	select {
	case err := <-c.done:
		return err
	case <-time.After(30 * time.Second):
		c.cmd.Process.Kill()
		return fmt.Errorf("bbs did not exit within 30 s of %v", sig)
	}
}

// tail keeps the last 8 KB written to it, for failure messages.
type tail struct {
	mu sync.Mutex
	b  []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 8<<10 {
		t.b = t.b[len(t.b)-8<<10:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
