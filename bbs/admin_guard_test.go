package bbs

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"bbslab/entity/fake"
)

// TestAdminRefusesCrossSite sends /admin/reset?posts=0 as a page on
// another site would make a browser send it, a CORS simple request that
// needs no preflight, and checks it is refused and the board untouched,
// while the tools' plain POST (no Origin, no Sec-Fetch-Site) still works.
func TestAdminRefusesCrossSite(t *testing.T) {
	st := fake.New(10)
	s := New(Options{Store: st, SeedPosts: 10})
	for _, h := range []struct {
		name string
		h    http.Handler
	}{{"AdminHandler", s.AdminHandler()}, {"StartingAdmin", StartingAdmin("", func() string { return "starting" })}} {
		ts := httptest.NewServer(h.h)
		hostile := []struct {
			name, ctype, body string
			hdr               map[string]string
		}{
			{"text/plain cross-site", "text/plain", "x", map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}},
			{"form cross-site", "application/x-www-form-urlencoded", "a=b", map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}},
			{"form same-site", "application/x-www-form-urlencoded", "", map[string]string{"Origin": "http://other.127.0.0.1.nip.io", "Sec-Fetch-Site": "same-site"}},
			{"foreign Origin, no Sec-Fetch-Site", "text/plain", "", map[string]string{"Origin": "http://evil.example"}},
		}
		for _, c := range hostile {
			req, _ := http.NewRequest("POST", ts.URL+"/admin/reset?posts=0", strings.NewReader(c.body))
			req.Header.Set("Content-Type", c.ctype)
			for k, v := range c.hdr {
				req.Header.Set(k, v)
			}
			resp, body := do(t, req)
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "cross-site request refused") {
				t.Errorf("%s: POST /admin/reset %s: %d %s; want 403 naming the cross-site refusal", h.name, c.name, resp.StatusCode, body)
			}
			if n := len(st.Posts()); n != 10 {
				t.Fatalf("%s: POST /admin/reset %s left %d posts; want the 10 untouched", h.name, c.name, n)
			}
		}
		ts.Close()
	}

	ts := httptest.NewServer(s.AdminHandler())
	defer ts.Close()
	for _, hdr := range []map[string]string{
		{}, // curl, loadtest's experiment runner, Go's http.Client
		{"Sec-Fetch-Site": "same-origin", "Origin": ts.URL}, // the admin's own page
	} {
		req, _ := http.NewRequest("POST", ts.URL+"/admin/reset?posts=3", nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		if resp, body := do(t, req); resp.StatusCode != 200 || len(st.Posts()) != 3 {
			t.Errorf("POST /admin/reset?posts=3 with headers %v: %d %s, %d posts; want 200 and 3 posts", hdr, resp.StatusCode, body, len(st.Posts()))
		}
		st.Reset(t.Context(), 10)
	}
	// A cross-site GET changes nothing and is still answered.
	if resp, _ := get(t, ts.URL+"/admin/stats", "Sec-Fetch-Site", "cross-site", "Origin", "http://evil.example"); resp.StatusCode != 200 {
		t.Errorf("cross-site GET /admin/stats: %d; want 200", resp.StatusCode)
	}
}

// TestAdminTokenNotInQuery checks that ?token= no longer authenticates and
// that the answer says to use the Authorization header.
func TestAdminTokenNotInQuery(t *testing.T) {
	s := New(Options{Store: fake.New(1), AdminToken: "s3cret"})
	ts := httptest.NewServer(s.AdminHandler())
	defer ts.Close()
	resp, body := get(t, ts.URL+"/admin/stats?token=s3cret")
	if resp.StatusCode != 401 || !strings.Contains(body, "Authorization: Bearer") || !strings.Contains(body, "?token=") {
		t.Errorf("GET /admin/stats?token=: %d %s; want 401 saying to use the Authorization header", resp.StatusCode, body)
	}
	if strings.Contains(body, "s3cret") {
		t.Errorf("401 body %s repeats the token", body)
	}
	if resp, _ := get(t, ts.URL+"/admin/stats", "Authorization", "Bearer s3cret"); resp.StatusCode != 200 {
		t.Errorf("GET /admin/stats with the header: %d; want 200", resp.StatusCode)
	}
}

func TestAdminCmdlineAndConfig(t *testing.T) {
	cfg := map[string]any{"dsn": "postgres://bob:xxxxx@db/test", "admin_token": "set", "workers": 5}
	s := New(Options{Store: fake.New(1), Cmdline: []string{"bbs", "-dsn", "postgres://bob:xxxxx@db/test"}, Config: cfg})
	ts := httptest.NewServer(s.AdminHandler())
	defer ts.Close()
	if _, body := get(t, ts.URL+"/debug/pprof/cmdline"); body != "bbs\x00-dsn\x00postgres://bob:xxxxx@db/test" {
		t.Errorf("/debug/pprof/cmdline = %q; want Options.Cmdline joined by NUL", body)
	}
	_, body := get(t, ts.URL+"/admin/stats")
	var st struct {
		Config map[string]any `json:"config"`
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	if st.Config["dsn"] != cfg["dsn"] || st.Config["admin_token"] != "set" || st.Config["workers"] != 5.0 {
		t.Errorf("/admin/stats config = %v; want %v", st.Config, cfg)
	}

	bare := httptest.NewServer(New(Options{Store: fake.New(1)}).AdminHandler())
	defer bare.Close()
	if _, body := get(t, bare.URL+"/debug/pprof/cmdline"); strings.Contains(body, "\x00") || body == "" {
		t.Errorf("/debug/pprof/cmdline without Options.Cmdline = %q; want the program name only", body)
	}
}

// lockedBuffer is an io.Writer safe for the handler and the test at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestAccessLogOmitsAuthorization checks that the access log records no
// request header, the Authorization header's credentials included.
func TestAccessLogOmitsAuthorization(t *testing.T) {
	var log lockedBuffer
	_, _, ts := newTest(t, Options{AccessLog: &log})
	get(t, ts.URL+"/bbs?"+url.Values{"cmd": {"AllView"}}.Encode(), "Authorization", "Bearer s3cret-in-header")
	ts.Close() // waits for the handler, which writes the line
	line := log.String()
	if !strings.Contains(line, `"uri":"/bbs?cmd=AllView"`) {
		t.Fatalf("access log %q lacks the request", line)
	}
	if strings.Contains(line, "s3cret") || strings.Contains(strings.ToLower(line), "authorization") {
		t.Errorf("access log %q records the Authorization header", line)
	}
}
