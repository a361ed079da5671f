package loadtest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// An ErrorKind classifies a failed request; failures are kept out of the latency figures.
type ErrorKind uint8

// The error kinds.
const (
	KindOK      ErrorKind = iota // the request succeeded
	KindConnect                  // the connection could not be opened
	KindTimeout                  // no complete response within Settings.Timeout
	KindIO                       // the connection broke or the response was malformed
	KindStatus                   // the status code was not the expected one
	KindBody                     // the body lacked the expected substring
	KindCutoff                   // in flight when the run stopped waiting (Settings.Drain, an interrupt)
	numKinds
)

var kindNames = [numKinds]string{"", "connect", "timeout", "io", "status", "body", "cutoff"}

// String returns the kind's name as used in results.
func (k ErrorKind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("kind%d", uint8(k))
}

// maxBody bounds the body read into memory for a substring check.
const maxBody = 16 << 20

// readerPool lends response readers, so that idle connections hold none.
var readerPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 4096) }}

// conn is one client's HTTP/1.1 connection. It is used by one goroutine.
type conn struct {
	addr      string
	tlsConf   *tls.Config // nil: plain HTTP
	timeout   time.Duration
	keepAlive bool
	stopCtx   context.Context
	reg       *connRegistry
	wantFirst bool // record the time of the first response byte
	nc        net.Conn
	raw       *rawConn      // raw system calls on nc (nil: use nc)
	deadline  time.Time     // current deadline of nc
	br        *bufio.Reader // borrowed from readerPool while busy
	body      []byte        // reusable buffer for body checks
}

func (c *conn) idle() {
	if c.br != nil {
		c.br.Reset(nil)
		readerPool.Put(c.br)
		c.br = nil
	}
}

type outcome struct {
	status   int
	kind     ErrorKind
	err      error
	recv     int64
	sentN    int64
	first    time.Time     // when the status line arrived
	connect  time.Duration // time to connect, 0 when reused
	reason   []byte        // status reason (valid until the next exchange)
	bodyFail bool
}

var errStopped = errors.New("stopped")

func (c *conn) close() {
	if c.nc != nil {
		if c.reg != nil {
			c.reg.remove(c.nc)
		}
		c.nc.Close()
		c.nc, c.raw = nil, nil
		c.deadline = time.Time{}
	}
	c.idle()
}

func (c *conn) dial(o *outcome) error {
	t0 := time.Now()
	d := net.Dialer{Timeout: c.timeout}
	nc, err := d.DialContext(c.stopCtx, "tcp", c.addr)
	if err != nil {
		return err
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	raw := newRawConn(nc)
	if c.tlsConf != nil {
		if nc, err = c.handshake(nc, raw, t0); err != nil {
			return err
		}
		raw = nil // tls.Conn reads and writes through raw itself
	}
	o.connect = time.Since(t0)
	if c.reg != nil && !c.reg.add(nc) {
		nc.Close()
		return errStopped
	}
	c.nc = nc
	c.raw = raw
	return nil
}

func (c *conn) handshake(nc net.Conn, raw *rawConn, t0 time.Time) (net.Conn, error) {
	under := nc
	if raw != nil {
		under = rawNetConn{Conn: nc, raw: raw}
	}
	tc := tls.Client(under, c.tlsConf)
	if c.timeout > 0 {
		c.deadline = t0.Add(c.timeout)
		nc.SetDeadline(c.deadline)
	}
	stop := context.AfterFunc(c.stopCtx, func() { nc.SetDeadline(time.Unix(1, 0)) })
	err := tc.Handshake()
	if !stop() && err != nil {
		err = errStopped
	}
	if err != nil {
		nc.Close()
		c.deadline = time.Time{}
		return nil, tlsError(c.addr, err)
	}
	return tc, nil
}

func tlsError(addr string, err error) error {
	if errors.Is(err, errStopped) {
		return err
	}
	var cv *tls.CertificateVerificationError
	if errors.As(err, &cv) {
		return fmt.Errorf("tls handshake with %s: %w (insecure, loadtest's -insecure, skips certificate verification)", addr, cv.Err)
	}
	return fmt.Errorf("tls handshake with %s: %w", addr, err)
}

// rawNetConn is the connection under a tls.Conn, using raw system calls.
type rawNetConn struct {
	net.Conn
	raw *rawConn
}

func (r rawNetConn) Read(p []byte) (int, error)  { return r.raw.Read(p) }
func (r rawNetConn) Write(p []byte) (int, error) { return r.raw.Write(p) }

// connRegistry knows a run's open connections, to wake them all at its stop.
type connRegistry struct {
	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	stopped bool
}

func newConnRegistry() *connRegistry { return &connRegistry{conns: map[net.Conn]struct{}{}} }

// add registers nc; false means the run has stopped.
func (g *connRegistry) add(nc net.Conn) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped {
		return false
	}
	g.conns[nc] = struct{}{}
	return true
}

func (g *connRegistry) remove(nc net.Conn) {
	g.mu.Lock()
	delete(g.conns, nc)
	g.mu.Unlock()
}

func (g *connRegistry) wakeAll() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stopped = true
	for nc := range g.conns {
		nc.SetDeadline(time.Unix(1, 0))
	}
}

// do runs one exchange, retried once on a reused connection the server closed while idle.
func (c *conn) do(now time.Time, req []byte, head bool, contains []byte, o *outcome) {
	*o = outcome{}
	for attempt := 0; ; attempt++ {
		reused := c.nc != nil
		if c.nc == nil {
			if err := c.dial(o); err != nil {
				o.kind, o.err = KindConnect, err
				return
			}
		}
		retry := c.exchange(now, req, head, contains, o)
		if o.kind == KindOK {
			if !c.keepAlive {
				c.close()
			}
			return
		}
		c.close()
		if !(retry && reused && attempt == 0) {
			return
		}
		*o = outcome{connect: o.connect}
	}
}

// exchange performs one request; retryable: it failed before any response byte.
func (c *conn) exchange(now time.Time, req []byte, head bool, contains []byte, o *outcome) (retryable bool) {
	n, err := c.send(now, req)
	o.sentN = int64(n)
	if err != nil {
		o.kind, o.err = classify(err), err
		return o.kind == KindIO
	}
	br := c.reader()
	line, err := br.ReadSlice('\n')
	if err != nil {
		o.kind, o.err = classify(err), err
		return len(line) == 0 && o.kind == KindIO
	}
	if c.wantFirst {
		o.first = time.Now()
	}
	o.recv = int64(len(line))
	if err := parseStatus(line, o); err != nil {
		o.kind, o.err = KindIO, err
		return false
	}
	rh := respHead{length: -1, closeAfter: line[7] == '0'} // HTTP/1.0 closes unless told otherwise
	if err := readHead(br, &rh, &o.recv); err != nil {
		o.kind, o.err = classify(err), err
		return false
	}
	keep := len(contains) > 0
	body := c.body[:0]
	switch code := o.status; {
	case head || code/100 == 1 || code == 204 || code == 304:
		// no body
	case rh.chunked:
		body, err = readChunked(br, keep, body, &o.recv)
	case rh.length >= 0:
		body, err = readN(br, keep, body, rh.length, &o.recv)
	default:
		body, err = readToEOF(br, keep, body, &o.recv)
		rh.closeAfter = true
	}
	if keep {
		c.body = body
	}
	if err != nil {
		o.kind, o.err = classify(err), err
		return false
	}
	if rh.closeAfter || br.Buffered() > 0 {
		c.close()
	}
	if keep && !bytes.Contains(body, contains) {
		o.bodyFail = true
	}
	return false
}

// send moves the deadline only by over timeout/16: each move updates a runtime timer.
func (c *conn) send(now time.Time, req []byte) (int, error) {
	if c.timeout > 0 {
		if d := now.Add(c.timeout); d.Sub(c.deadline) > c.timeout/16 {
			c.nc.SetDeadline(d)
			c.deadline = d
		}
	}
	if c.raw != nil {
		return c.raw.Write(req)
	}
	return c.nc.Write(req)
}

func (c *conn) reader() *bufio.Reader {
	if c.br == nil {
		c.br = readerPool.Get().(*bufio.Reader)
		if c.raw != nil {
			c.br.Reset(c.raw)
		} else {
			c.br.Reset(c.nc)
		}
	}
	return c.br
}

func parseStatus(line []byte, o *outcome) error {
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return fmt.Errorf("malformed status line %q", trimCRLF(line))
	}
	code := 0
	for _, ch := range line[9:12] {
		if ch < '0' || ch > '9' {
			return fmt.Errorf("malformed status line %q", trimCRLF(line))
		}
		code = code*10 + int(ch-'0')
	}
	o.status = code
	if len(line) > 13 {
		o.reason = trimCRLF(line[13:])
	}
	return nil
}

type respHead struct {
	length     int64 // Content-Length; -1 when absent
	chunked    bool  // Transfer-Encoding: chunked
	closeAfter bool  // the server closes the connection after the body
}

func readHead(br *bufio.Reader, rh *respHead, recv *int64) error {
	for {
		line, err := br.ReadSlice('\n')
		*recv += int64(len(line))
		if err != nil {
			if errors.Is(err, bufio.ErrBufferFull) {
				err = errors.New("response header line too long")
			}
			return err
		}
		h := trimCRLF(line)
		if len(h) == 0 {
			return nil
		}
		colon := bytes.IndexByte(h, ':')
		if colon <= 0 {
			continue
		}
		key, val := h[:colon], bytes.TrimSpace(h[colon+1:])
		switch {
		case bytes.EqualFold(key, []byte("Content-Length")):
			rh.length = 0
			for _, ch := range val {
				if ch < '0' || ch > '9' {
					return fmt.Errorf("bad Content-Length %q", val)
				}
				rh.length = rh.length*10 + int64(ch-'0')
			}
		case bytes.EqualFold(key, []byte("Transfer-Encoding")):
			rh.chunked = bytes.Contains(bytes.ToLower(val), []byte("chunked"))
		case bytes.EqualFold(key, []byte("Connection")):
			if bytes.EqualFold(val, []byte("close")) {
				rh.closeAfter = true
			} else if bytes.EqualFold(val, []byte("keep-alive")) {
				rh.closeAfter = false
			}
		}
	}
}

func readN(br *bufio.Reader, keep bool, body []byte, n int64, recv *int64) ([]byte, error) {
	if !keep || int64(len(body))+n > maxBody {
		d, err := br.Discard(int(n))
		*recv += int64(d)
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return body, err
	}
	start := len(body)
	if cap(body)-start < int(n) {
		nb := make([]byte, start, start+int(n))
		copy(nb, body)
		body = nb
	}
	body = body[:start+int(n)]
	m, err := io.ReadFull(br, body[start:])
	*recv += int64(m)
	return body, err
}

func readChunked(br *bufio.Reader, keep bool, body []byte, recv *int64) ([]byte, error) {
	for {
		line, err := br.ReadSlice('\n')
		*recv += int64(len(line))
		if err != nil {
			return body, err
		}
		l := trimCRLF(line)
		if i := bytes.IndexByte(l, ';'); i >= 0 {
			l = l[:i]
		}
		l = bytes.TrimSpace(l)
		size, err := strconv.ParseInt(string(l), 16, 64)
		if err != nil || len(l) > 15 || l[0] == '-' || l[0] == '+' {
			return body, fmt.Errorf("bad chunk size %q", l)
		}
		if size == 0 {
			for { // trailer
				line, err := br.ReadSlice('\n')
				*recv += int64(len(line))
				if err != nil {
					return body, err
				}
				if len(trimCRLF(line)) == 0 {
					return body, nil
				}
			}
		}
		if body, err = readN(br, keep, body, size, recv); err != nil {
			return body, err
		}
		if _, err = readN(br, false, body, 2, recv); err != nil {
			return body, err
		}
	}
}

func readToEOF(br *bufio.Reader, keep bool, body []byte, recv *int64) ([]byte, error) {
	var tmp [4096]byte
	for {
		n, err := br.Read(tmp[:])
		*recv += int64(n)
		if keep && len(body)+n <= maxBody {
			body = append(body, tmp[:n]...)
		}
		if errors.Is(err, io.EOF) {
			return body, nil
		}
		if err != nil {
			return body, err
		}
	}
}

func trimCRLF(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

func classify(err error) ErrorKind {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return KindTimeout
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return KindTimeout
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return KindConnect
	}
	return KindIO
}
