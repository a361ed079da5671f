package bbs

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"bbslab/entity"
	"bbslab/entity/fake"
)

func newTest(t *testing.T, opt Options) (*Server, *fake.Store, *httptest.Server) {
	t.Helper()
	st := fake.New(100)
	opt.Store = st
	if opt.Workers == 0 {
		opt.Workers = 4
		opt.Queue = 4
	}
	s := New(opt)
	s.SetReady(true)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return s, st, ts
}

func get(t *testing.T, u string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return do(t, req)
}

func do(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func post(t *testing.T, u string, form url.Values) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", u, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return do(t, req)
}

func TestPage(t *testing.T) {
	_, _, ts := newTest(t, Options{})
	resp, body := get(t, ts.URL+"/")
	if resp.StatusCode != 200 || resp.Request.URL.Path != "/bbs" {
		t.Fatalf("GET / ended at %s with %d; want /bbs 200", resp.Request.URL.Path, resp.StatusCode)
	}
	for _, want := range []string{`name="name"`, `name="message"`, `value="AllView"`, `value="OnceGetView"`, `value="EachGetView"`, `id="post-100"`, `id="post-71"`} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Contains(body, `id="post-70"`) {
		t.Errorf("page shows post 70; want only the 30 newest")
	}
}

func TestEscapesStoredScript(t *testing.T) {
	_, st, ts := newTest(t, Options{})
	msg := `<script>alert("x")</script>`
	resp, body := post(t, ts.URL+"/bbs", url.Values{"cmd": {"AllView"}, "name": {"<b>太郎</b>"}, "message": {msg}})
	if resp.StatusCode != 200 {
		t.Fatalf("post: %d %s", resp.StatusCode, body)
	}
	for _, c := range []string{"AllView", "OnceGetView", "EachGetView"} {
		_, body = get(t, ts.URL+"/bbs?cmd="+c)
		if strings.Contains(body, "<script>") || strings.Contains(body, "<b>太郎") {
			t.Errorf("%s page contains unescaped markup", c)
		}
		if !strings.Contains(body, "&lt;script&gt;") || !strings.Contains(body, "&lt;b&gt;太郎") {
			t.Errorf("%s page lacks the escaped message and Japanese name", c)
		}
	}
	if p := st.Posts(); p[len(p)-1].Message != msg {
		t.Errorf("stored %q; want the literal %q", p[len(p)-1].Message, msg)
	}
}

func TestBadInputStoresNothing(t *testing.T) {
	_, st, ts := newTest(t, Options{})
	bad := []url.Values{
		{"cmd": {"Nope"}},
		{"cmd": {"AllView"}, "n": {"0"}},
		{"cmd": {"AllView"}, "n": {"501"}},
		{"cmd": {"AllView"}, "n": {"abc"}},
		{"cmd": {"AllView"}, "message": {""}},
		{"cmd": {"AllView"}, "message": {strings.Repeat("x", 1001)}},
		{"cmd": {"AllView"}, "name": {strings.Repeat("n", 65)}, "message": {"m"}},
		{"cmd": {"AllView"}, "message": {"a\xffb"}},
		{"cmd": {"AllView"}, "message": {"a\x00b"}},
		{"cmd": {"AllView"}, "message": {"a\x07b"}},
		{"message": {"no command"}},
	}
	for _, form := range bad {
		for _, method := range []string{"GET", "POST"} {
			var resp *http.Response
			var body string
			if method == "GET" {
				resp, body = get(t, ts.URL+"/bbs?"+form.Encode())
			} else {
				resp, body = post(t, ts.URL+"/bbs", form)
			}
			if resp.StatusCode != 400 {
				t.Errorf("%s %v: status %d; want 400", method, form, resp.StatusCode)
			}
			if !strings.Contains(body, "class=\"error\"") {
				t.Errorf("%s %v: body does not explain the error: %.200s", method, form, body)
			}
		}
	}
	if n := st.Inserts.Load(); n != 0 {
		t.Errorf("bad input stored %d posts", n)
	}
	if n := len(st.Posts()); n != 100 {
		t.Errorf("posts = %d; want 100", n)
	}
	resp, body := get(t, ts.URL+"/bbs?cmd=Nope&format=json")
	var je jsonError
	if err := json.Unmarshal([]byte(body), &je); err != nil || resp.StatusCode != 400 || !strings.Contains(je.Error, "Nope") {
		t.Errorf("JSON error = %d %q (%v); want 400 naming the command", resp.StatusCode, body, err)
	}
}

func TestMethodAndSize(t *testing.T) {
	_, st, ts := newTest(t, Options{})
	req, _ := http.NewRequest("DELETE", ts.URL+"/bbs", nil)
	resp, _ := do(t, req)
	if resp.StatusCode != 405 || resp.Header.Get("Allow") == "" {
		t.Errorf("DELETE: %d Allow=%q; want 405 with Allow", resp.StatusCode, resp.Header.Get("Allow"))
	}
	big := url.Values{"cmd": {"AllView"}, "message": {strings.Repeat("x", 70<<10)}}
	resp, _ = post(t, ts.URL+"/bbs", big)
	if resp.StatusCode != 413 {
		t.Errorf("70 KB body: %d; want 413", resp.StatusCode)
	}
	if st.Inserts.Load() != 0 {
		t.Errorf("rejected requests stored posts")
	}
}

func TestJSONAndHeaders(t *testing.T) {
	_, _, ts := newTest(t, Options{})
	for _, tt := range []struct {
		cmd               string
		queries, acquires string
	}{
		{"AllView", "1", "1"}, {"OnceGetView", "30", "1"}, {"EachGetView", "30", "30"},
	} {
		for _, hdr := range [][]string{nil, {"Accept", "application/json"}} {
			u := ts.URL + "/bbs?cmd=" + tt.cmd
			if hdr == nil {
				u += "&format=json"
			}
			resp, body := get(t, u, hdr...)
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("%s %v: Content-Type %q", tt.cmd, hdr, ct)
			}
			var got struct {
				Command string `json:"command"`
				Posts   []struct {
					No        int64     `json:"no"`
					Name      string    `json:"name"`
					Message   string    `json:"message"`
					CreatedAt time.Time `json:"created_at"`
				} `json:"posts"`
			}
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatalf("%s: %v in %.200s", tt.cmd, err, body)
			}
			if got.Command != tt.cmd || len(got.Posts) != 30 || got.Posts[0].No != 100 || got.Posts[0].CreatedAt.IsZero() || got.Posts[0].Name == "" {
				t.Errorf("%s JSON = %s %d posts, first %+v", tt.cmd, got.Command, len(got.Posts), got.Posts[0])
			}
			if q, a := resp.Header.Get("X-BBS-Queries"), resp.Header.Get("X-BBS-Acquires"); q != tt.queries || a != tt.acquires {
				t.Errorf("%s: X-BBS-Queries %q X-BBS-Acquires %q; want %s, %s", tt.cmd, q, a, tt.queries, tt.acquires)
			}
			st := resp.Header.Get("Server-Timing")
			for _, m := range []string{"queue;dur=", "acquire;dur=", "db;dur=", "net;dur=", "total;dur="} {
				if !strings.Contains(st, m) {
					t.Errorf("%s: Server-Timing %q lacks %s", tt.cmd, st, m)
				}
			}
		}
	}
	resp, _ := post(t, ts.URL+"/bbs?format=json", url.Values{"cmd": {"EachGetView"}, "message": {"hi"}})
	if q, a := resp.Header.Get("X-BBS-Queries"), resp.Header.Get("X-BBS-Acquires"); q != "31" || a != "31" {
		t.Errorf("EachGetView with a post: queries %q acquires %q; want 31, 31", q, a)
	}
}

// TestQueueFull holds the only worker with a gated store, fills the queue,
// and checks that the next request gets 503 with Retry-After at once.
func TestQueueFull(t *testing.T) {
	s, st, ts := newTest(t, Options{Workers: 1, Queue: 1, QueueTimeout: time.Minute})
	st.Gate = make(chan struct{})
	results := make(chan int, 2)
	for i := 0; i < 2; i++ {
		go func() {
			resp, err := http.Get(ts.URL + "/bbs?cmd=AllView")
			if err != nil {
				results <- -1
				return
			}
			resp.Body.Close()
			results <- resp.StatusCode
		}()
	}
	waitUntil(t, "one request at the gate and one queued", func() bool {
		return st.Waiting.Load() == 1 && s.limit.stats().Queued == 1
	})
	resp, body := get(t, ts.URL+"/bbs?cmd=AllView")
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" {
		t.Errorf("third request: %d Retry-After %q; want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if !strings.Contains(body, "busy") {
		t.Errorf("503 body does not say the server is busy: %.200s", body)
	}
	if r := s.limit.stats().Rejected; r != 1 {
		t.Errorf("rejected = %d; want 1", r)
	}
	close(st.Gate) // let both through
	for i := 0; i < 2; i++ {
		if code := <-results; code != 200 {
			t.Errorf("held request: %d; want 200", code)
		}
	}
	// A client can read the whole response before the handler returns and
	// gives its worker back, so the pool is idle soon after, not at once.
	waitUntil(t, "the worker pool to be idle", func() bool {
		w := s.limit.stats()
		return w.Busy == 0 && w.Queued == 0
	})
}

// waitUntil polls cond every millisecond and fails the test if it is not
// true within 10 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestQueueTimeout checks that a request waiting longer than the queue
// timeout gets 503.
func TestQueueTimeout(t *testing.T) {
	s, st, ts := newTest(t, Options{Workers: 1, Queue: 5, QueueTimeout: 50 * time.Millisecond})
	st.Gate = make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := http.Get(ts.URL + "/bbs?cmd=AllView")
		if err == nil {
			resp.Body.Close()
		}
	}()
	waitUntil(t, "the first request to wait for a connection", func() bool { return st.Waiting.Load() == 1 })
	resp, _ := get(t, ts.URL+"/bbs?cmd=AllView")
	if resp.StatusCode != 503 {
		t.Errorf("queued past the timeout: %d; want 503", resp.StatusCode)
	}
	close(st.Gate)
	<-done
	if s.limit.stats().Rejected != 1 {
		t.Errorf("rejected = %d; want 1", s.limit.stats().Rejected)
	}
}

func TestDatabaseDown(t *testing.T) {
	_, st, ts := newTest(t, Options{})
	st.Err = entity.ErrUnavailable
	resp, body := get(t, ts.URL+"/bbs?cmd=AllView")
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "database is unavailable") {
		t.Errorf("database down: %d %q", resp.StatusCode, body)
	}
}
