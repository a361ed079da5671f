package bbs

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSize: ?size= and the size knob answer exactly that many body bytes,
// the page cut or padded with spaces after its end.
func TestSize(t *testing.T) {
	_, _, ts := newTest(t, Options{})
	_, page := get(t, ts.URL+"/bbs?cmd=AllView")
	// The page's cost line differs from one request to the next: compare
	// its start, and its end after the padding.
	for _, n := range []int{0, 5, 100, len(page) + 40000} {
		resp, body := get(t, ts.URL+"/bbs?cmd=AllView&size="+strconv.Itoa(n))
		if resp.StatusCode != 200 || len(body) != n || resp.Header.Get("Content-Length") != strconv.Itoa(n) {
			t.Errorf("size=%d: %d, %d bytes, Content-Length %s; want 200, %d", n, resp.StatusCode, len(body), resp.Header.Get("Content-Length"), n)
			continue
		}
		switch {
		case n < len(page) && body != page[:n]:
			t.Errorf("size=%d: body %q; want the page's first %d bytes", n, body, n)
		case n > len(page) && (body[:100] != page[:100] || !strings.HasSuffix(strings.TrimRight(body, " "), "</html>\n") || body[len(body)-40000:] != strings.Repeat(" ", 40000)):
			t.Errorf("size=%d: not the page padded with spaces", n)
		}
	}
}

// TestOverrides: ?status= answers that status without running the
// command, ?delay= waits at least that long, and a bad parameter answers
// 400 naming it.
func TestOverrides(t *testing.T) {
	_, st, ts := newTest(t, Options{})
	before := st.Queries.Load()
	resp, body := get(t, ts.URL+"/bbs?cmd=AllView&status=418&format=json")
	if resp.StatusCode != 418 || !strings.Contains(body, "injected") || resp.Header.Get("X-Bbs-Queries") != "0" {
		t.Errorf("status=418: %d %q queries %s; want 418 saying injected, no query", resp.StatusCode, body, resp.Header.Get("X-Bbs-Queries"))
	}
	if st.Queries.Load() != before {
		t.Errorf("status=418 ran %d statements; want none", st.Queries.Load()-before)
	}
	start := time.Now()
	if resp, _ := get(t, ts.URL+"/bbs?cmd=AllView&delay=50ms"); resp.StatusCode != 200 || time.Since(start) < 50*time.Millisecond {
		t.Errorf("delay=50ms: %d after %v; want 200 after at least 50ms", resp.StatusCode, time.Since(start))
	}
	for _, q := range []string{"delay=5", "status=99", "status=503:200", "size=-1", "size=x"} {
		param, _, _ := strings.Cut(q, "=")
		resp, body := get(t, ts.URL+"/bbs?cmd=AllView&format=json&"+q)
		if resp.StatusCode != 400 || !strings.Contains(body, `"error":"`+param+":") {
			t.Errorf("%s: %d %s; want 400 naming %s", q, resp.StatusCode, body, param)
		}
	}
}

// TestAdminBehaviour sets the knobs at run time: the board follows them,
// GET shows them, bad values answer 400 naming the key.
func TestAdminBehaviour(t *testing.T) {
	s, _, ts := newTest(t, Options{})
	adm := newAdmin(t, s)
	resp, body := post(t, adm+"/admin/behaviour", url.Values{"error_status": {"503"}, "error_share": {"1"}, "size": {"64"}, "delay": {"uniform:1ms-2ms"}})
	if resp.StatusCode != 200 {
		t.Fatalf("POST /admin/behaviour: %d %s", resp.StatusCode, body)
	}
	if resp, body := get(t, ts.URL+"/bbs?cmd=AllView"); resp.StatusCode != 503 || len(body) != 64 {
		t.Errorf("with error_share 1, size 64: %d, %d bytes; want 503, 64", resp.StatusCode, len(body))
	}
	_, body = get(t, adm+"/admin/behaviour")
	var got BehaviourStats
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if got.ErrorStatus != 503 || got.ErrorShare != 1 || got.Size != 64 || got.Delay != "uniform:1ms-2ms" || got.StallEvery != "0s" {
		t.Errorf("GET /admin/behaviour = %+v", got)
	}
	for _, tt := range []struct{ form, key string }{
		{"delay=fast", "delay"},
		{"stall_every=1s", "stall_for"},
		{"error_share=2", "error_share"},
		{"size=x", "size"},
		{"stall_now=2h", "stall_now"},
		{"", "give at least one"},
	} {
		q, _ := url.ParseQuery(tt.form)
		resp, body := post(t, adm+"/admin/behaviour", q)
		if resp.StatusCode != 400 || !strings.Contains(body, tt.key) {
			t.Errorf("POST %q: %d %s; want 400 naming %s", tt.form, resp.StatusCode, body, tt.key)
		}
	}
	post(t, adm+"/admin/behaviour", url.Values{"error_share": {"0"}, "error_status": {"0"}, "size": {"0"}, "delay": {""}})
	if _, on := s.behave.Current(); on {
		t.Error("knobs set back to zero: still on")
	}
	if resp, _ := get(t, ts.URL+"/bbs?cmd=AllView"); resp.StatusCode != 200 {
		t.Errorf("after setting back: %d; want 200", resp.StatusCode)
	}
}
