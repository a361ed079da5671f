package overhead

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"bbslab/internal/testenv"
)

// TestOverheadSmoke runs the whole orchestration for one row, one round
// of a second on SQLite: it builds the board and the yardstick, starts
// both, checks their bodies agree and prints a ratio. No timing is
// asserted.
func TestOverheadSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds three binaries and runs a load for a second")
	}
	_, err := exec.LookPath("go")
	testenv.Need(t, err == nil, "go is not on PATH: cannot build the board and the yardstick")
	// The load tool runs as a child ("loadtest run"): this test's binary
	// is not one, so build it.
	lt := filepath.Join(t.TempDir(), "loadtest")
	if out, err := exec.Command("go", "build", "-o", lt, "bbslab/cmd/loadtest").CombinedOutput(); err != nil {
		t.Fatalf("go build loadtest: %v\n%s", err, out)
	}
	var out strings.Builder
	err = Run(context.Background(), Options{DBs: []string{"sqlite"}, Commands: []string{"OnceGetView"}, Formats: []string{"html"},
		Rounds: 1, Duration: time.Second, Clients: 10, Workers: 10, Pool: 10, N: 30, Loadtest: lt, Pin: true}, &out)
	stdout := out.String()
	if err != nil {
		t.Fatalf("overhead: %v\nstdout:\n%s", err, stdout)
	}
	row := regexp.MustCompile(`(?m)^sqlite\s+OnceGetView\s+html\s+[1-9]\d*\s+[1-9]\d*\s+[1-9]\d*us\s+[1-9]\d*us\s+\d+\.\d\d \(\d+\.\d\d-\d+\.\d\d\)\s+\d+\.\d\d \(\d+\.\d\d-\d+\.\d\d\)$`)
	if !row.MatchString(stdout) {
		t.Errorf("overhead printed no ratio row for sqlite OnceGetView html:\n%s", stdout)
	}
	for _, want := range []string{"date: ", "machine: ", "load average before: ", "load average after: "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("overhead output lacks %q:\n%s", want, stdout)
		}
	}
}

// TestSameBodies checks that answers equal but for the cost line pass and
// that others fail naming where they differ.
func TestSameBodies(t *testing.T) {
	page := func(body string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("status") != "" {
				http.Error(w, "down", http.StatusServiceUnavailable)
				return
			}
			fmt.Fprint(w, body)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	board := page("<ul>\n<li>a</li>\n</ul>\n<p class=\"cost\">3 ms</p>\n")
	same := page("<ul>\n<li>a</li>\n</ul>\n<p class=\"cost\">9 ms</p>\n")
	other := page("<ul>\n<li>b</li>\n</ul>\n")
	ctx := context.Background()
	if err := sameBodies(ctx, board, same); err != nil {
		t.Errorf("sameBodies(equal but for the cost line) = %v; want nil", err)
	}
	if err := sameBodies(ctx, board, other); err == nil || !strings.Contains(err.Error(), "from byte 9") {
		t.Errorf("sameBodies(different) = %v; want an error naming byte 9", err)
	}
	if err := sameBodies(ctx, board, other+"?status=1"); err == nil || !strings.Contains(err.Error(), "yardstick: GET") || !strings.Contains(err.Error(), "503") {
		t.Errorf("sameBodies(yardstick answers 503) = %v; want an error naming the yardstick and the status", err)
	}
}

// TestReachable checks that a DSN that is no URL, or names a port where
// nothing listens, is refused with a reason.
func TestReachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := reachable("postgres://u@" + addr + "/db"); err != nil {
		t.Errorf("reachable(a listening port) = %v; want nil", err)
	}
	ln.Close()
	if err := reachable("postgres://u@" + addr + "/db"); err == nil || !strings.Contains(err.Error(), "nothing answers at "+addr) {
		t.Errorf("reachable(a closed port) = %v; want nothing answers at %s", err, addr)
	}
	if err := reachable("host=x user=y"); err == nil || !strings.Contains(err.Error(), "not a postgres:// URL") {
		t.Errorf("reachable(a keyword DSN) = %v; want not a URL", err)
	}
}

// TestOptionsCheck checks that Check accepts the command's defaults and
// refuses each number out of its range, naming the flag and the value.
func TestOptionsCheck(t *testing.T) {
	good := Options{Rounds: 5, Duration: 2 * time.Second, Warmup: time.Second, Clients: 10, Workers: 10, Pool: 10, N: 30}
	if err := good.Check(); err != nil {
		t.Fatalf("Check(the defaults) = %v; want nil", err)
	}
	for _, tc := range []struct {
		change func(*Options)
		want   string
	}{
		{func(o *Options) { o.Rounds = 0 }, "-rounds 0: want 1..100"},
		{func(o *Options) { o.Rounds = 101 }, "-rounds 101"},
		{func(o *Options) { o.Duration = 10 * time.Millisecond }, "-duration 10ms: want at least 100ms"},
		{func(o *Options) { o.Warmup = -time.Second }, "-warmup -1s"},
		{func(o *Options) { o.Clients = 10001 }, "-clients 10001"},
		{func(o *Options) { o.Workers = -1 }, "-workers -1"},
		{func(o *Options) { o.Pool = 0 }, "-pool 0"},
		{func(o *Options) { o.N = 501 }, "-n 501"},
	} {
		o := good
		tc.change(&o)
		if err := o.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Check(%+v) = %v; want an error saying %q", o, err, tc.want)
		}
	}
}

// TestUsageNamesTheDSN checks that the description gives the default
// PostgreSQL server it falls back to.
func TestUsageNamesTheDSN(t *testing.T) {
	if !strings.Contains(Usage, "BBS_PG_DSN (default "+DefaultPGDSN+")") {
		t.Errorf("Usage does not give BBS_PG_DSN's default %s:\n%s", DefaultPGDSN, Usage)
	}
}
