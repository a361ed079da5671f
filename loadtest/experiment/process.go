package experiment

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// serverProc is a server under test started by an experiment.
type serverProc struct {
	cmd    *exec.Cmd
	log    *os.File
	exited chan struct{}
	err    error // set when exited is closed
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port, nil
}

// startServer starts argv with its output in logPath, held to cpus when
// given: pinned to them when pin is set and the system allows it (the
// child inherits the affinity of the thread that starts it), otherwise
// capped with GOMAXPROCS (serverCap). env is the experiment file's
// [server] env, expanded. It returns a note about what was done.
func startServer(argv, env []string, dir, logPath string, cpus []int, pin bool) (*serverProc, string, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, "", fmt.Errorf("server log: %w", err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout = log
	cmd.Stderr = log
	// A process group of its own, so that "go run" and its child both get
	// the signals (proc_unix.go; elsewhere the process alone).
	ownGroup(cmd)

	note := "server not pinned"
	var startErr error
	switch {
	case len(cpus) == 0:
		startErr = cmd.Start()
	case !pin:
		note = serverCap(cmd, env, cpus, errPinOff)
		startErr = cmd.Start()
	default:
		// Pin this OS thread, start the child from it, then restore.
		runtime.LockOSThread()
		restore, perr := pinThread(cpus)
		if perr != nil {
			note = serverCap(cmd, env, cpus, perr)
		} else {
			note = fmt.Sprintf("server pinned to CPU %s", cpuList(cpus))
		}
		startErr = cmd.Start()
		if restore != nil {
			restore()
		}
		runtime.UnlockOSThread()
	}
	if startErr != nil {
		log.Close()
		return nil, note, fmt.Errorf("start server %q: %w", strings.Join(argv, " "), startErr)
	}
	p := &serverProc{cmd: cmd, log: log, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, note, nil
}

// waitReady polls url until it answers 200, the server exits, or timeout.
func (p *serverProc) waitReady(parent context.Context, url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	client := &http.Client{Timeout: 2 * time.Second}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var last string
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := client.Do(req)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		select {
		case <-p.exited:
			return fmt.Errorf("the server exited before it was ready (%v); its log: %s", p.err, p.tail())
		case <-ctx.Done():
			if err := parent.Err(); err != nil { // interrupted, not timed out
				return fmt.Errorf("waiting for %s: %w", url, err)
			}
			return fmt.Errorf("the server was not ready at %s within %v (last answer: %s); its log: %s", url, timeout, last, p.tail())
		case <-tick.C:
		}
	}
}

// waitListening waits until addr accepts TCP connections, the server
// exits, or timeout.
func (p *serverProc) waitListening(parent context.Context, addr string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	var d net.Dialer
	for {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-p.exited:
			return fmt.Errorf("the server exited before it listened on %s (%v); its log: %s", addr, p.err, p.tail())
		case <-ctx.Done():
			if err := parent.Err(); err != nil { // interrupted, not timed out
				return fmt.Errorf("waiting for %s: %w", addr, err)
			}
			return fmt.Errorf("the server did not listen on %s within %v; its log: %s", addr, timeout, p.tail())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// stop asks the server's process group to end (SIGTERM; on Windows, where
// there is none, it kills the process at once), waits up to timeout, then
// kills it.
func (p *serverProc) stop(timeout time.Duration) error {
	defer p.log.Close()
	select {
	case <-p.exited:
		return nil
	default:
	}
	terminate(p.cmd)
	select {
	case <-p.exited:
		return nil
	case <-time.After(timeout):
		kill(p.cmd)
		<-p.exited
		return fmt.Errorf("the server did not stop within %v of SIGTERM and was killed", timeout)
	}
}

// tail returns the end of the server's log.
func (p *serverProc) tail() string {
	b, err := os.ReadFile(p.log.Name())
	if err != nil {
		return "(unreadable)"
	}
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "(empty)"
	}
	return "\n" + s
}

// post sends an empty POST to url and checks for a 2xx answer.
func post(ctx context.Context, url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("POST %s: %s: %s", url, resp.Status, bytes.TrimSpace(b))
	}
	return nil
}

// resolveCommand makes a relative program path relative to dir.
func resolveCommand(argv []string, dir string) []string {
	out := append([]string(nil), argv...)
	if strings.Contains(out[0], "/") && !filepath.IsAbs(out[0]) {
		out[0] = filepath.Join(dir, out[0])
	}
	return out
}
