package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestGradeWithoutWindowExit2 runs `loadtest grade -server` against a
// board whose truth has no window (none opened, as GET /admin/truth
// answers then): exit 2, not 3, and stderr names the missing window, the
// tool's span and the commands that open and close one on that server.
func TestGradeWithoutWindowExit2(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"version":1,"window":{"start":"","end":"","open":false},"requests":0,"status":{},"seconds":[],
 "server_ms":{},"service_ms":{},"stalls":[],"log":false,"note":"no truth window: POST /admin/truth/start first"}`))
	}))
	defer srv.Close()
	code, out, errs := runCmd(context.Background(), "grade", "-server", srv.URL, "../../loadtest/grade/testdata/vegeta.json")
	if code != 2 {
		t.Fatalf("grade without a window: exit %d; want 2\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	for _, want := range []string{"loadtest: grade: cannot grade", "truth's window: none opened",
		"tool's span:    2026-12-02T07:20:00.000Z to 2026-12-02T07:20:02.900Z",
		"curl -X POST " + srv.URL + "/admin/truth/start", "curl -X POST " + srv.URL + "/admin/truth/stop", "?log=1", "docs/grading.md"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if strings.Contains(out, "FAIL") || !strings.Contains(out, "truth: no window opened") {
		t.Errorf("stdout grades the file or misreports the window:\n%s", out)
	}
}
