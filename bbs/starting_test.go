package bbs

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestStartingHandlers checks what the listeners answer while start-up
// opens the database: the process is healthy, nothing else is served, and
// every refusal says when to retry.
func TestStartingHandlers(t *testing.T) {
	status := "starting: waiting for the database (attempt 2 failed; db_wait leaves 9s)"
	adm := httptest.NewServer(StartingAdmin("", func() string { return status }))
	defer adm.Close()
	board := httptest.NewServer(StartingBoard())
	defer board.Close()

	if resp, body := get(t, adm.URL+"/healthz"); resp.StatusCode != 200 || body != "ok\n" {
		t.Errorf("healthz: %d %q; want 200 ok", resp.StatusCode, body)
	}
	resp, body := get(t, adm.URL+"/readyz")
	var r readiness
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("readyz body %q: %v", body, err)
	}
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || r.Ready || r.Reason != status {
		t.Errorf("readyz: %d Retry-After %q %+v; want 503 with Retry-After and the status", resp.StatusCode, resp.Header.Get("Retry-After"), r)
	}
	status = "starting: opening the database" // read on each request
	for _, path := range []string{"/readyz", "/admin/stats", "/debug/pprof/", "/"} {
		resp, body := get(t, adm.URL+path)
		if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, status) {
			t.Errorf("admin %s: %d Retry-After %q %q; want 503 naming the status", path, resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
	}
	for _, path := range []string{"/bbs?cmd=AllView", "/", "/static/x.css"} {
		resp, body := get(t, board.URL+path)
		if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "starting") {
			t.Errorf("board %s: %d Retry-After %q %q; want 503 saying it is starting", path, resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
		if q, a := counts(resp); strings.HasPrefix(path, "/bbs") && (q != "0" || a != "0") {
			t.Errorf("board %s while starting: X-BBS-Queries %q, X-BBS-Acquires %q; want 0 and 0", path, q, a)
		}
	}

	guarded := httptest.NewServer(StartingAdmin("s3cret", func() string { return status }))
	defer guarded.Close()
	if resp, _ := get(t, guarded.URL+"/readyz"); resp.StatusCode != 401 {
		t.Errorf("readyz without the admin token: %d; want 401", resp.StatusCode)
	}
	if resp, _ := get(t, guarded.URL+"/healthz", "Authorization", "Bearer s3cret"); resp.StatusCode != 200 {
		t.Errorf("healthz with the admin token: %d; want 200", resp.StatusCode)
	}
}
