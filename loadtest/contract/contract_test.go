package contract_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"bbslab/bbs"
	"bbslab/diskbench"
	"bbslab/entity"
	"bbslab/entity/open"
	"bbslab/loadtest/contract"
	"bbslab/loadtest/watch"
	"bbslab/machine"
)

// board is the real board handler over a real SQLite store in a temp dir,
// public and admin, seeded with 40 posts.
type board struct {
	pub, adm *httptest.Server
	smp      *machine.Sampler
	srv      *bbs.Server
}

func newBoard(t *testing.T, wrap func(http.Handler) http.Handler) *board {
	t.Helper()
	smp := machine.NewSampler()
	smp.Sample()
	return newBoardOn(t, smp, wrap)
}

// newBoardOn is newBoard with the machine stats of smp.
func newBoardOn(t *testing.T, smp *machine.Sampler, wrap func(http.Handler) http.Handler) *board {
	t.Helper()
	st, err := open.Store(context.Background(), entity.Options{Driver: "sqlite", DSN: filepath.Join(t.TempDir(), "bbs.db"), Pool: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := bbs.New(bbs.Options{Store: st, DBName: "sqlite", Machine: smp, ServerPort: ln.Addr().(*net.TCPAddr).Port,
		Config: map[string]any{"workers": 4}})
	s.SetReady(true)
	h := s.Handler()
	if wrap != nil {
		h = wrap(h)
	}
	pub := httptest.NewUnstartedServer(h)
	pub.Listener.Close()
	pub.Listener = ln
	pub.Start()
	t.Cleanup(pub.Close)
	adm := httptest.NewServer(s.AdminHandler())
	t.Cleanup(adm.Close)
	b := &board{pub: pub, adm: adm, smp: smp, srv: s}
	b.reset(t)
	return b
}

// reset restores 40 posts.
func (b *board) reset(t *testing.T) {
	t.Helper()
	resp, err := http.Post(b.adm.URL+"/admin/reset?posts=40", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("reset: %s", resp.Status)
	}
}

// stats returns the decoded /admin/stats JSON.
func (b *board) stats(t *testing.T) map[string]any {
	t.Helper()
	resp, err := http.Get(b.adm.URL + "/admin/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil || resp.StatusCode != 200 {
		t.Fatalf("stats: %s %v", resp.Status, err)
	}
	return doc
}

// lookup follows a dotted path of object keys.
func lookup(doc any, path string) (any, bool) {
	cur := doc
	for _, k := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func TestValidatePassesOnTheRealBoard(t *testing.T) {
	b := newBoard(t, nil)
	if err := contract.Board.Validate(context.Background(), b.pub.URL+"/bbs"); err != nil {
		t.Errorf("Validate(real board) = %v; want nil", err)
	}
	// With fewer posts than asked for, the post-by-post commands' last
	// lookup finds nothing and counts (View.Expect).
	resp, err := http.Post(b.adm.URL+"/admin/reset?posts=7", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := contract.Board.Validate(context.Background(), b.pub.URL+"/bbs"); err != nil {
		t.Errorf("Validate(real board, 7 posts) = %v; want nil", err)
	}
}

// TestValidateCatchesABrokenBoard checks that validation fails, naming
// the failure, when the real board is made to break its contract: counts
// off by one either way, and bad input answered 200.
func TestValidateCatchesABrokenBoard(t *testing.T) {
	tests := []struct {
		name string
		wrap func(http.Handler) http.Handler
		want string
	}{
		{"EachGetView queries+1", skew("EachGetView", "X-BBS-Queries", +1), "EachGetView: X-BBS-Queries = 31, want 30"},
		{"AllView queries+1", skew("AllView", "X-BBS-Queries", +1), "AllView: X-BBS-Queries = 2, want 1"},
		{"OnceGetView acquires-1", skew("OnceGetView", "X-BBS-Acquires", -1), "OnceGetView: X-BBS-Acquires = 0, want 1"},
		{"bad input accepted", acceptBad, "status 200, want 400"},
	}
	for _, tt := range tests {
		b := newBoard(t, tt.wrap)
		err := contract.Board.Validate(context.Background(), b.pub.URL+"/bbs")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Validate(board with %s) = %v; want an error with %q", tt.name, err, tt.want)
		}
	}
}

// skew makes the board report header off by delta for cmd.
func skew(cmd, header string, delta int) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.FormValue("cmd") == cmd && r.FormValue("message") == "" {
				w = &headerSkew{ResponseWriter: w, header: header, delta: delta}
			}
			h.ServeHTTP(w, r)
		})
	}
}

// acceptBad answers 200 to the bad inputs the board refuses, without
// storing them.
func acceptBad(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.Contains(r.FormValue("message"), "validate-bad") {
			w.Write([]byte("ok"))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// headerSkew adds delta to a count header.
type headerSkew struct {
	http.ResponseWriter
	header string
	delta  int
	done   bool
}

func (h *headerSkew) WriteHeader(code int) {
	if !h.done {
		h.done = true
		if n, err := strconv.Atoi(h.Header().Get(h.header)); err == nil {
			h.Header().Set(h.header, strconv.Itoa(n+h.delta))
		}
	}
	h.ResponseWriter.WriteHeader(code)
}

func (h *headerSkew) Write(p []byte) (int, error) {
	if !h.done {
		h.WriteHeader(http.StatusOK)
	}
	return h.ResponseWriter.Write(p)
}

// TestStatPathsExist checks every stat against the real
// /admin/stats JSON: its path holds a number, and a counter does not go
// down while the board serves requests.
func TestStatPathsExist(t *testing.T) {
	b := newBoard(t, nil)
	before := b.stats(t)
	for range 5 {
		resp, err := http.Get(b.pub.URL + "/bbs?cmd=EachGetView&n=10")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	// A second sample: the machine's figures cover the window between two,
	// and a window in which no clock tick (10 ms) passed has none. Wait
	// for a tick rather than hope for one.
	time.Sleep(30 * time.Millisecond)
	b.smp.Sample()
	after := b.stats(t)
	for _, r := range append(contract.Board.Stats, contract.Board.ProcessCPU) {
		v1, ok1 := lookup(after, r.Path)
		v0, ok0 := lookup(before, r.Path)
		if r.Kind == watch.Gauge {
			v0, ok0 = v1, ok1 // a gauge is read once, after the requests
		}
		if r.Optional && !ok1 {
			continue // left out when there is nothing to report
		}
		if !ok0 || !ok1 {
			t.Errorf("stat %s: path %q is not in /admin/stats", r.Name, r.Path)
			continue
		}
		f0, isNum0 := v0.(float64)
		f1, isNum1 := v1.(float64)
		if !isNum0 || !isNum1 {
			t.Errorf("stat %s: %q = %v, %v; want numbers", r.Name, r.Path, v0, v1)
			continue
		}
		switch r.Kind {
		case watch.Counter:
			if f1 < f0 {
				t.Errorf("counter %s (%q) went down from %v to %v", r.Name, r.Path, f0, f1)
			}
		case watch.Gauge:
		default:
			t.Errorf("stat %s: kind %q; want gauge or counter", r.Name, r.Kind)
		}
	}
	// Two stats that must move under this load.
	for _, path := range []string{"workers.busy_seconds_total", "db_pool.in_use_seconds_total"} {
		v0, _ := lookup(before, path)
		v1, _ := lookup(after, path)
		if f0, f1 := v0.(float64), v1.(float64); f1 <= f0 {
			t.Errorf("%s stayed at %v over 5 requests; want it to grow", path, f0)
		}
	}
}

// TestStatsMetadata checks that each stat names a chart that exists
// and that the watcher accepts them all.
func TestStatsMetadata(t *testing.T) {
	charts := map[string]bool{}
	for _, c := range contract.Board.Charts {
		charts[c.Name] = true
	}
	drawn := map[string]int{}
	for _, r := range contract.Board.Stats {
		if r.Chart != "" {
			if !charts[r.Chart] {
				t.Errorf("stat %s: chart %q is not in Charts", r.Name, r.Chart)
			}
			drawn[r.Chart]++
		}
	}
	for name := range charts {
		if drawn[name] == 0 {
			t.Errorf("chart %q draws no stat", name)
		}
	}
	if _, err := watch.New(watch.Options{StatsURL: "http://127.0.0.1:1/admin/stats", Stats: contract.Board.Stats, EnvironmentKeys: contract.Board.EnvironmentKeys}); err != nil {
		t.Errorf("watch.New(contract.Board.Stats) = %v", err)
	}
}

func TestEnvironmentKeysExist(t *testing.T) {
	b := newBoard(t, nil)
	doc := b.stats(t)
	for _, k := range contract.Board.EnvironmentKeys {
		if _, ok := doc[k].(map[string]any); !ok {
			t.Errorf("environment key %q: /admin/stats has %v; want an object", k, doc[k])
		}
	}
}

// TestDiskRoundTrip runs the real disk benchmark, encodes its result as
// bbs diskbench -json does and reads it back as the report's table.
func TestDiskRoundTrip(t *testing.T) {
	res, err := diskbench.Run(context.Background(), diskbench.Options{Dir: t.TempDir(), N: 3, Size: 512})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	d := contract.Board.Disk(raw)
	if d == nil {
		t.Fatalf("Disk(%s) = nil; want a table", raw)
	}
	if len(d.Rows) != len(diskbench.Ops) {
		t.Errorf("disk table has %d rows; want one per operation (%d)", len(d.Rows), len(diskbench.Ops))
	}
	for i, row := range d.Rows {
		if row[0] != res.Stats[i].Op || row[1] != strconv.FormatInt(res.Stats[i].AvgNS, 10) {
			t.Errorf("row %d = %v; want %s with avg %d", i, row, res.Stats[i].Op, res.Stats[i].AvgNS)
		}
	}
	if !strings.Contains(d.Caption, res.Grade.Name) || !strings.Contains(d.Verdict, "fsync took") {
		t.Errorf("caption %q, verdict %q; want the grade and fsync named", d.Caption, d.Verdict)
	}
	for _, other := range []string{``, `{"something":"else"}`, `[1,2]`, `not json`} {
		if d := contract.Board.Disk(json.RawMessage(other)); d != nil {
			t.Errorf("Disk(%q) = %+v; want nil", other, d)
		}
	}
}

func TestStartHint(t *testing.T) {
	for _, tt := range []struct {
		argv []string
		want bool
	}{
		{[]string{"bbs", "-db", "postgres"}, true},
		{[]string{"bbs", "-db=postgres"}, true},
		{[]string{"bbs", "-dsn", "postgres://u:p@h/db"}, true},
		{[]string{"bbs", "-dsn=postgresql://h/db"}, true},
		{[]string{"bbs", "-db", "sqlite", "-dsn", "bbs.db"}, false},
		{[]string{"bbs", "-db"}, false},
	} {
		h := contract.Board.StartHint(tt.argv)
		if got := h != ""; got != tt.want || got && !strings.Contains(h, "PostgreSQL") {
			t.Errorf("StartHint(%q) = %q; want a PostgreSQL hint: %v", tt.argv, h, tt.want)
		}
	}
}
