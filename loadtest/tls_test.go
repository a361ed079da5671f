package loadtest

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// recordingTLSServer is an https:// server with a self-signed certificate
// that records what each request carried and counts the TLS connections
// it accepted.
type recordingTLSServer struct {
	*httptest.Server
	mu     sync.Mutex
	seen   []http.Request
	bodies []string
	conns  int
}

func newRecordingTLSServer(t *testing.T) *recordingTLSServer {
	t.Helper()
	rs := &recordingTLSServer{}
	rs.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rs.mu.Lock()
		rs.seen = append(rs.seen, *r)
		rs.bodies = append(rs.bodies, string(b))
		rs.mu.Unlock()
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte("<html>secure</html>"))
	}))
	rs.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			rs.mu.Lock()
			rs.conns++
			rs.mu.Unlock()
		}
	}
	rs.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is expected
	rs.StartTLS()
	t.Cleanup(rs.Close)
	return rs
}

func TestHTTPSNeedsATrustedCertificateOrInsecure(t *testing.T) {
	srv := newRecordingTLSServer(t)
	s := Settings{Requests: []Request{{URL: srv.URL + "/"}}, Clients: 1, MaxRequests: 5, Seed: 1}
	_, err := Run(context.Background(), s)
	if err == nil || !strings.Contains(err.Error(), "x509") || !strings.Contains(err.Error(), "insecure") {
		t.Fatalf("Run(https, self-signed, verifying) error = %v; want one naming the certificate problem (x509) and -insecure", err)
	}
	s.Insecure = true
	res := mustRun(t, s)
	if res.Total.Successes != 5 || res.Total.StatusCodes["200"] != 5 {
		t.Errorf("Run(https, insecure): %d successes, status codes %v; want 5 and 200:5 (errors %v)", res.Total.Successes, res.Total.StatusCodes, res.Total.ErrorSet)
	}
}

func TestHTTPSHeadersAndBodyReachTheTarget(t *testing.T) {
	for _, keepAlive := range []bool{true, false} {
		srv := newRecordingTLSServer(t)
		s := Settings{
			Requests: []Request{{URL: srv.URL + "/post", Body: `{"n":{{seq}}}`,
				Headers: map[string]string{"Content-Type": "application/json", "X-Token": "t{{client}}", "Host": "board.example"}}},
			Clients: 2, MaxRequests: 20, Seed: 1, Insecure: true, DisableKeepAlive: !keepAlive,
		}
		res := mustRun(t, s)
		if res.Total.Successes != 20 {
			t.Fatalf("keepalive=%v: %d successes of %d; errors %v", keepAlive, res.Total.Successes, res.Total.Requests, res.Total.ErrorSet)
		}
		srv.mu.Lock()
		if len(srv.seen) != 20 {
			t.Fatalf("keepalive=%v: server saw %d requests; want 20", keepAlive, len(srv.seen))
		}
		bodies := map[string]bool{}
		for i, r := range srv.seen {
			if r.Method != "POST" || r.Host != "board.example" || r.Header.Get("Content-Type") != "application/json" ||
				(r.Header.Get("X-Token") != "t1" && r.Header.Get("X-Token") != "t2") || r.ContentLength != int64(len(srv.bodies[i])) {
				t.Errorf("keepalive=%v: request %d = %s Host %q headers %v length %d; want POST to board.example with the headers given", keepAlive, i, r.Method, r.Host, r.Header, r.ContentLength)
			}
			bodies[srv.bodies[i]] = true
		}
		conns := srv.conns
		srv.mu.Unlock()
		if len(bodies) != 20 || !bodies[`{"n":7}`] {
			t.Errorf("keepalive=%v: %d distinct bodies; want 20, {\"n\":1}..{\"n\":20}", keepAlive, len(bodies))
		}
		// Keep-alive: the two clients' connections; without: one per
		// request (insecure: no certificate check before the run).
		if keepAlive && conns > 2 || !keepAlive && conns != 20 {
			t.Errorf("keepalive=%v: server accepted %d TLS connections", keepAlive, conns)
		}
		if !keepAlive && res.Total.StatusCodes["200"] != 20 {
			t.Errorf("status codes %v; want 200:20", res.Total.StatusCodes)
		}
	}
}

func TestStatusCodesAndErrorSet(t *testing.T) {
	srv := newRecordingTLSServer(t)
	res := mustRun(t, Settings{Requests: []Request{{URL: srv.URL + "/missing"}}, Clients: 1, MaxRequests: 4, Insecure: true})
	if res.Total.StatusCodes["404"] != 4 || res.Total.ErrorKinds["status"] != 4 || res.Total.ErrorSet["status 404 Not Found"] != 4 {
		t.Errorf("404s: status codes %v, kinds %v, error set %v; want 404:4, status 4, \"status 404 Not Found\": 4", res.Total.StatusCodes, res.Total.ErrorKinds, res.Total.ErrorSet)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens: every connect is refused
	res = mustRun(t, Settings{Requests: []Request{{URL: "http://" + addr + "/"}}, Clients: 1, MaxRequests: 3})
	if res.Total.StatusCodes["0"] != 3 || len(res.Total.ErrorSet) != 1 {
		t.Errorf("refused: status codes %v, error set %v; want 0:3 and one text", res.Total.StatusCodes, res.Total.ErrorSet)
	}
	for text := range res.Total.ErrorSet {
		if !strings.Contains(text, "refused") {
			t.Errorf("refused: error text %q does not say refused", text)
		}
	}
}

func TestErrorSetIsBounded(t *testing.T) {
	set := map[string]int64{}
	for i := range 15 {
		addErr(set, strings.Repeat("x", i+1), 1)
	}
	addErr(set, "x", 2)
	if len(set) != MaxErrorSet+1 || set[ErrorSetOther] != 5 || set["x"] != 3 {
		t.Errorf("error set after 15 texts = %v; want %d texts, 5 under %q, x counted 3 times", set, MaxErrorSet, ErrorSetOther)
	}
}
