package fleetwatch

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestParseHAProxy reads three expositions of HAProxy 2.6.12's exporter
// captured on this VM (2026-12-03) from a backend "boards" of servers r1
// and r2 (testdata/*.metrics): after five requests redispatched away from
// a dead r2, with requests queued at the proxy behind two slow servers of
// maxconn 2, and after connection errors, retries and a 503.
func TestParseHAProxy(t *testing.T) {
	type want struct {
		backend Proxied
		r1, r2  Proxied
	}
	tests := []struct {
		file string
		want want
	}{
		{"haproxy-redispatch.metrics", want{
			backend: Proxied{SessionsTotal: 5, Redispatches: 4, Up: 1, Answered: 5},
			r1:      Proxied{SessionsTotal: 5, Up: 1, Answered: 5},
			r2:      Proxied{SessionsTotal: 4, Redispatches: 4, Up: 1},
		}},
		{"haproxy-queue.metrics", want{
			backend: Proxied{CurrentSessions: 9, SessionsTotal: 32, CurrentQueue: 5, MaxQueue: 5, Retries: 24, Redispatches: 9, ConnectionErrors: 12, Up: 1, Answered: 23},
			r1:      Proxied{CurrentSessions: 2, SessionsTotal: 48, Retries: 24, Redispatches: 5, ConnectionErrors: 12, Up: 1, Answered: 5},
			r2:      Proxied{CurrentSessions: 2, SessionsTotal: 12, Redispatches: 4, Up: 1, Answered: 6},
		}},
		{"haproxy-errors.metrics", want{
			backend: Proxied{SessionsTotal: 23, Retries: 24, Redispatches: 9, ConnectionErrors: 12, Up: 1, Answered: 23},
			r1:      Proxied{SessionsTotal: 46, Retries: 24, Redispatches: 5, ConnectionErrors: 12, Up: 1, Answered: 5},
			r2:      Proxied{SessionsTotal: 10, Redispatches: 4, Up: 1, Answered: 6},
		}},
	}
	for _, tt := range tests {
		f, err := os.Open("testdata/" + tt.file)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ParseHAProxy(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		if len(r.Backends) != 1 || len(r.Servers) != 2 {
			t.Errorf("%s: %d backends, %d servers; want 1 (boards) and 2 (r1, r2)", tt.file, len(r.Backends), len(r.Servers))
		}
		check := func(what string, got, want Proxied) {
			t.Helper()
			got.Responses = nil
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s:\n got %+v\nwant %+v", tt.file, what, got, want)
			}
		}
		check("backend", r.Backend, tt.want.backend)
		check("boards", r.Backends["boards"], tt.want.backend)
		check("r1", r.Servers["r1"], tt.want.r1)
		check("r2", r.Servers["r2"], tt.want.r2)
	}
}

// TestParseHAProxyClasses checks the responses by class of the capture
// with errors: 2xx and 5xx from the backend, 5xx from r2 only.
func TestParseHAProxyClasses(t *testing.T) {
	f, err := os.Open("testdata/haproxy-errors.metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ParseHAProxy(f)
	if err != nil {
		t.Fatal(err)
	}
	b := r.Backend.Responses
	if b["2xx"] != 10 || b["5xx"] != 13 || b["4xx"] != 0 || len(b) != 6 {
		t.Errorf("backend responses = %v; want 2xx 10, 5xx 13 and six classes", b)
	}
	if r.Servers["r2"].Responses["5xx"] != 1 || r.Servers["r1"].Responses["5xx"] != 0 {
		t.Errorf("5xx by server = r1 %v, r2 %v; want 0 and 1", r.Servers["r1"].Responses["5xx"], r.Servers["r2"].Responses["5xx"])
	}
}

// TestParseHAProxyRefuses checks that what is not HAProxy's exporter is
// an error, not a reading of zeros.
func TestParseHAProxyRefuses(t *testing.T) {
	for _, in := range []string{
		"# TYPE go_goroutines gauge\ngo_goroutines 12\n",
		"haproxy_backend_current_queue{proxy=\"b\" 0\n",
		"",
	} {
		if r, err := ParseHAProxy(strings.NewReader(in)); err == nil {
			t.Errorf("ParseHAProxy(%q) = %+v, nil; want an error", in, r)
		}
	}
}
