package bbs

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"bbslab/entity"
)

// counts returns a response's X-BBS-Queries and X-BBS-Acquires, "" when
// missing.
func counts(resp *http.Response) (queries, acquires string) {
	return resp.Header.Get("X-BBS-Queries"), resp.Header.Get("X-BBS-Acquires")
}

// TestCountHeadersOnErrors checks that every answer of /bbs carries
// X-BBS-Queries and X-BBS-Acquires: 0 and 0 when no command ran (bad
// input, a wrong method, a body too large, the database down).
func TestCountHeadersOnErrors(t *testing.T) {
	_, st, ts := newTest(t, Options{})
	long := url.Values{"message": {strings.Repeat("x", 70<<10)}}.Encode()
	tests := []struct {
		name, method, query, body string
		code                      int
	}{
		{"unknown command", "GET", "cmd=Nope", "", 400},
		{"bad n", "GET", "cmd=AllView&n=0", "", 400},
		{"n not a number", "GET", "cmd=AllView&n=x", "", 400},
		{"empty message", "POST", "", "cmd=AllView&name=a&message=", 400},
		{"bad form", "POST", "", "cmd=%zz", 400},
		{"method", "PUT", "cmd=AllView", "", 405},
		{"body too large", "POST", "", long, 413},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(tt.method, ts.URL+"/bbs?"+tt.query, strings.NewReader(tt.body))
		if tt.body != "" {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		resp, _ := do(t, req)
		if q, a := counts(resp); resp.StatusCode != tt.code || q != "0" || a != "0" {
			t.Errorf("%s: %d with X-BBS-Queries %q, X-BBS-Acquires %q; want %d with 0 and 0", tt.name, resp.StatusCode, q, a, tt.code)
		}
	}
	st.Err = entity.ErrUnavailable
	resp, _ := get(t, ts.URL+"/bbs?cmd=AllView")
	if q, a := counts(resp); resp.StatusCode != 503 || q != "0" || a != "0" {
		t.Errorf("database down: %d with X-BBS-Queries %q, X-BBS-Acquires %q; want 503 with 0 and 0", resp.StatusCode, q, a)
	}
}

// TestCountHeadersWorkerLimit checks the 503s of the worker limit (queue
// full, queue timeout) carry 0 and 0: they ran nothing.
func TestCountHeadersWorkerLimit(t *testing.T) {
	_, st, ts := newTest(t, Options{Workers: 1, Queue: 1, QueueTimeout: 50 * time.Millisecond})
	st.Gate = make(chan struct{})
	held := make(chan struct{})
	go func() {
		defer close(held)
		if resp, err := http.Get(ts.URL + "/bbs?cmd=AllView"); err == nil {
			resp.Body.Close()
		}
	}()
	defer func() { close(st.Gate); <-held }()
	waitUntil(t, "the first request to hold the worker", func() bool { return st.Waiting.Load() == 1 })
	// The second waits in the queue until it times out; the third, sent
	// while the second is queued, finds the queue full.
	timedOut := make(chan *http.Response, 1)
	go func() {
		resp, err := http.Get(ts.URL + "/bbs?cmd=AllView")
		if err != nil {
			timedOut <- nil
			return
		}
		resp.Body.Close()
		timedOut <- resp
	}()
	resp, body := get(t, ts.URL+"/bbs?cmd=AllView")
	if q, a := counts(resp); resp.StatusCode != 503 || q != "0" || a != "0" {
		t.Errorf("worker limit: %d %q with X-BBS-Queries %q, X-BBS-Acquires %q; want 503 with 0 and 0", resp.StatusCode, body, q, a)
	}
	resp = <-timedOut
	if resp == nil {
		t.Fatal("the queued request failed")
	}
	if q, a := counts(resp); resp.StatusCode != 503 || q != "0" || a != "0" {
		t.Errorf("queue timeout: %d with X-BBS-Queries %q, X-BBS-Acquires %q; want 503 with 0 and 0", resp.StatusCode, q, a)
	}
}

// TestCountHeadersMidway checks that a command stopped midway (its
// deadline passed inside SQL) reports what it did up to there.
func TestCountHeadersMidway(t *testing.T) {
	_, st, ts := newTest(t, Options{RequestTimeout: 100 * time.Millisecond})
	// Three statements pass, the fourth waits until the deadline: EachGetView
	// has taken four connections and sent three statements.
	st.SQLGate = make(chan struct{}, 3)
	for range 3 {
		st.SQLGate <- struct{}{}
	}
	resp, _ := get(t, ts.URL+"/bbs?cmd=EachGetView&n=10")
	if q, a := counts(resp); resp.StatusCode != 503 || q != "3" || a != "4" {
		t.Errorf("EachGetView stopped at its 4th statement: %d with X-BBS-Queries %q, X-BBS-Acquires %q; want 503 with 3 and 4", resp.StatusCode, q, a)
	}
}

// TestCountHeadersRetries checks that a statement sent again (as SQLite
// does after SQLITE_BUSY) counts each time it was sent.
func TestCountHeadersRetries(t *testing.T) {
	s, st, ts := newTest(t, Options{})
	st.Retries = 2
	tests := []struct {
		query             string
		queries, acquires string
	}{
		{"cmd=AllView&n=5", "3", "1"},
		{"cmd=OnceGetView&n=5", "15", "1"},
		{"cmd=EachGetView&n=5", "15", "5"},
	}
	for _, tt := range tests {
		resp, _ := get(t, ts.URL+"/bbs?"+tt.query)
		if q, a := counts(resp); resp.StatusCode != 200 || q != tt.queries || a != tt.acquires {
			t.Errorf("%s with 2 retries per statement: %d with X-BBS-Queries %q, X-BBS-Acquires %q; want 200 with %s and %s", tt.query, resp.StatusCode, q, a, tt.queries, tt.acquires)
		}
	}
	if got := s.Stats().Commands["OnceGetView"].Queries; got != 15 {
		t.Errorf("stats OnceGetView queries = %d; want 15, the statements sent", got)
	}
}
