package child

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// StartAnnounced starts the child s describes and waits until it prints a
// line starting with prefix on its standard output (the address it
// serves on, say), then returns the rest of that line, trimmed. Its
// output goes on being read, so that it never blocks on a full pipe, and
// goes to s.Stdout too. When the child exits first, or prints no such
// line within timeout, it is stopped and the error holds the end of its
// standard error (unless s.Stderr takes it).
func StartAnnounced(s Spec, prefix string, timeout time.Duration) (*Process, string, error) {
	a := &announcer{prefix: prefix, found: make(chan string, 1)}
	out := io.Writer(a)
	if s.Stdout != nil {
		out = io.MultiWriter(a, s.Stdout)
	}
	s.Stdout = out
	var errb *lockedBuffer
	if s.Stderr == nil {
		errb = &lockedBuffer{}
		s.Stderr = errb
	}
	stderr := func() string {
		if errb == nil {
			return ""
		}
		return ":\n" + errb.tail(2000)
	}
	p, err := Start(s)
	if err != nil {
		return nil, "", err
	}
	select {
	case line := <-a.found:
		return p, line, nil
	case <-p.done:
		// Wait returned, so the output was all read: a line printed
		// just before the exit is in found already.
		select {
		case line := <-a.found:
			return p, line, nil
		default:
		}
		return nil, "", fmt.Errorf("%s exited (%v) before printing %q%s", s.Argv[0], p.err, prefix, stderr())
	case <-time.After(timeout):
		p.Stop(10 * time.Second)
		return nil, "", fmt.Errorf("%s printed no %q line within %v%s", s.Argv[0], prefix, timeout, stderr())
	}
}

// announcer is a child's standard output: it sends the rest of the first
// line that starts with prefix to found and discards the rest. exec.Cmd
// writes to it from one goroutine.
type announcer struct {
	prefix string
	found  chan string
	line   []byte
	sent   bool
}

func (a *announcer) Write(p []byte) (int, error) {
	if a.sent {
		return len(p), nil
	}
	a.line = append(a.line, p...)
	for {
		i := bytes.IndexByte(a.line, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(a.line[:i])
		a.line = a.line[i+1:]
		if strings.HasPrefix(line, a.prefix) {
			a.found <- strings.TrimSpace(strings.TrimPrefix(line, a.prefix))
			a.sent, a.line = true, nil
			return len(p), nil
		}
	}
}

// lockedBuffer collects the end of a child's standard error.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// keepStderr is how much of a child's standard error a lockedBuffer
// keeps: the end of it, for an error message.
const keepStderr = 64 << 10

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len()+len(p) > 2*keepStderr {
		tail := bytes.Clone(l.b.Bytes()[max(0, l.b.Len()-keepStderr):])
		l.b.Reset()
		l.b.Write(tail)
	}
	return l.b.Write(p)
}

// tail returns the last n bytes written.
func (l *lockedBuffer) tail(n int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.b.Bytes()
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
