package experiment

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"bbslab/internal/child"
)

type serverProc struct {
	*child.Process
	log *os.File
}

// startServer starts argv, logging to logPath, held to cpus, and says how.
func startServer(argv, env []string, dir, logPath string, cpus []int, pin bool) (*serverProc, string, error) {
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, "", fmt.Errorf("server log: %w", err)
	}
	argv, err = goRunBuilt(argv, dir)
	if err != nil {
		log.Close()
		return nil, "", err
	}
	// A group of its own, so that any children get the signals.
	p, err := child.Start(child.Spec{Argv: argv, Dir: dir, Env: env, Stdout: log, Stderr: log, CPUs: cpus, Pin: pin, OwnGroup: true})
	if err != nil {
		log.Close()
		return nil, "", fmt.Errorf("start server %q: %w", strings.Join(argv, " "), err)
	}
	return &serverProc{Process: p, log: log}, serverNote(p.Hold), nil
}

func (p *serverProc) waitReady(parent context.Context, url string, timeout time.Duration) error {
	client := &http.Client{Timeout: 2 * time.Second}
	var last string
	ready := func(ctx context.Context) bool {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := client.Do(req)
		if err != nil {
			last = err.Error()
			return false
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		last = resp.Status
		return resp.StatusCode == http.StatusOK
	}
	return p.poll(parent, url, timeout, 100*time.Millisecond, "before it was ready", ready, func() string {
		return fmt.Sprintf("was not ready at %s within %v (last answer: %s)", url, timeout, last)
	})
}

func (p *serverProc) waitListening(parent context.Context, addr string, timeout time.Duration) error {
	listening := func(ctx context.Context) bool {
		c, err := new(net.Dialer).DialContext(ctx, "tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	}
	return p.poll(parent, addr, timeout, 5*time.Millisecond, "before it listened on "+addr, listening, func() string {
		return fmt.Sprintf("did not listen on %s within %v", addr, timeout)
	})
}

// poll tries up every interval until it reports true, the server exits, or timeout.
func (p *serverProc) poll(parent context.Context, target string, timeout, every time.Duration, before string,
	up func(context.Context) bool, late func() string) error {
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	for !up(ctx) {
		select {
		case <-p.Exited():
			return fmt.Errorf("the server exited %s (%v); its log: %s", before, p.Err(), p.tail())
		case <-ctx.Done():
			if err := parent.Err(); err != nil { // interrupted, not timed out
				return fmt.Errorf("waiting for %s: %w", target, err)
			}
			return fmt.Errorf("the server %s; its log: %s", late(), p.tail())
		case <-time.After(every):
		}
	}
	return nil
}

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

// post POSTs to url within timeout and returns a 2xx answer's body.
func post(ctx context.Context, url string, timeout time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("POST %s: %s: %s", url, resp.Status, bytes.TrimSpace(b[:min(len(b), 200)]))
	}
	return b, nil
}

// resolveCommand makes a relative program path relative to dir.
func resolveCommand(argv []string, dir string) []string {
	out := append([]string(nil), argv...)
	if strings.Contains(out[0], "/") && !filepath.IsAbs(out[0]) {
		out[0] = filepath.Join(dir, out[0])
	}
	return out
}

func serverNote(h child.Hold) string {
	switch {
	case len(h.CPUs) == 0:
		return "server not pinned"
	case h.Pinned:
		return fmt.Sprintf("server pinned to CPU %s", child.CPUList(h.CPUs))
	case h.FromEnv:
		return fmt.Sprintf("server not pinned (%v): GOMAXPROCS=%s from the file's [server] env; the OS chooses its cores", h.NotPinned, h.GOMAXPROCS)
	}
	return fmt.Sprintf("server not pinned (%v): GOMAXPROCS=%s in its environment (the number of [server] cpus); the OS chooses its cores", h.NotPinned, h.GOMAXPROCS)
}

// holdGenerator holds this process, the load generator, to cpus until restore, and says how.
func holdGenerator(cpus []int, pin bool) (note string, cores []int, restore func()) {
	h, restore := child.HoldSelf(cpus, pin)
	switch {
	case len(cpus) == 0:
		return "load generator not pinned", allCPUs(), restore
	case h.Pinned:
		return fmt.Sprintf("load generator pinned to CPU %s", child.CPUList(cpus)), cpus, restore
	}
	return fmt.Sprintf("load generator not pinned (%v): GOMAXPROCS=%s while the experiment runs (the number of [client] cpus); the OS chooses its cores and may share them with the server", h.NotPinned, h.GOMAXPROCS), allCPUs(), restore
}

func (x *experimentRunner) hint(argv []string) {
	if x.opt.Target.StartHint == nil {
		return
	}
	if h := x.opt.Target.StartHint(argv); h != "" {
		x.logf("%s", h)
	}
}

// redactURLs returns argv with URL passwords replaced by xxxxx.
func redactURLs(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = a
		prefix, v := "", a
		if k, val, ok := strings.Cut(a, "="); ok && strings.HasPrefix(k, "-") {
			prefix, v = k+"=", val
		}
		if u, err := url.Parse(v); err == nil && u.User != nil {
			if _, has := u.User.Password(); has {
				out[i] = prefix + u.Redacted()
			}
		}
	}
	return out
}
