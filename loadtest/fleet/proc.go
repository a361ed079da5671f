package fleet

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"bbslab/internal/child"
)

// proc is one process of the fleet, its output in a log file.
type proc struct {
	name string // "replica 1", "pgbouncer", "haproxy"
	*child.Process
	log *os.File
	// ready: an exit before it is set is waitFor's error, after it the fleet's.
	ready atomic.Bool
}

func start(name string, argv, env []string, dir, logPath string, cpus []int, pin bool) (*proc, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("%s: log: %w", name, err)
	}
	p, err := child.Start(child.Spec{Argv: argv, Dir: dir, Env: env, Stdout: log, Stderr: log, CPUs: cpus, Pin: pin, OwnGroup: true})
	if err != nil {
		log.Close()
		return nil, fmt.Errorf("start %s (%s): %w", name, argv[0], err)
	}
	return &proc{name: name, Process: p, log: log}, nil
}

// exitedErr says how p exited, with the end of its log.
func (p *proc) exitedErr(when string) error {
	return fmt.Errorf("%s (pid %d) exited %s (%v); its log (%s): %s", p.name, p.Pid(), when, p.Err(), p.log.Name(), p.tail())
}

// waitFor polls ok until it returns nil, p exits, or timeout.
func (p *proc) waitFor(parent context.Context, timeout time.Duration, what string, ok func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		err := ok(ctx)
		if err == nil {
			p.ready.Store(true)
			select {
			case <-p.Exited(): // it exited as it answered: not ready after all
				return p.exitedErr("as it became ready")
			default:
			}
			return nil
		}
		select {
		case <-p.Exited():
			return p.exitedErr("before it was ready")
		case <-ctx.Done():
			if perr := parent.Err(); perr != nil {
				return fmt.Errorf("%s: waiting for %s: %w", p.name, what, perr)
			}
			return fmt.Errorf("%s was not ready within %v: %s: %v; its log: %s", p.name, timeout, what, err, p.tail())
		case <-tick.C:
		}
	}
}

// listening is a readiness check: addr accepts connections.
func listening(addr string) func(context.Context) error {
	return func(ctx context.Context) error {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			c.Close()
		}
		return err
	}
}

// answers200 is a readiness check: url answers 200.
func answers200(url string) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := Get(ctx, httpClient, url, "", 32<<20)
		return err
	}
}

var httpClient = &http.Client{Timeout: 5 * time.Second}

// Get returns at most limit bytes of url's 200 body, asked over c with accept.
func Get(ctx context.Context, c *http.Client, url, accept string, limit int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return io.ReadAll(io.LimitReader(resp.Body, limit))
}

func (p *proc) stop(timeout time.Duration) error {
	defer p.log.Close()
	if err := p.Stop(timeout); err != nil {
		return fmt.Errorf("%s: %w", p.name, err)
	}
	return nil
}

func (p *proc) tail() string {
	b, err := os.ReadFile(p.log.Name())
	if err != nil {
		return "(unreadable)"
	}
	if len(b) == 0 {
		return "(empty)"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return "\n" + strings.Join(lines[max(0, len(lines)-20):], "\n")
}
