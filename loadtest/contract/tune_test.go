package contract_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bbslab/bbs"
	"bbslab/entity"
	"bbslab/entity/open"
	"bbslab/loadtest"
	"bbslab/loadtest/contract"
	"bbslab/loadtest/watch"
	"bbslab/machine"
)

// TestTuningRolesNameBoardStats checks that every role of Board.Tuning
// names a stat of Board.Stats (TestStatPathsExist checks those against
// the real /admin/stats).
func TestTuningRolesNameBoardStats(t *testing.T) {
	tn := contract.Board.Tuning
	if tn == nil || tn.Get == nil || tn.Set == nil || tn.Work == nil {
		t.Fatal("Board.Tuning is incomplete")
	}
	have := map[string]bool{}
	for _, s := range contract.Board.Stats {
		have[s.Name] = true
	}
	for _, name := range []string{tn.WorkerWait, tn.WorkersBusy, tn.WorkersQueued, tn.PoolWait, tn.PoolInUse, tn.PoolWaiting, tn.CoresBusy, tn.MachineIdle, tn.CPUWait} {
		if !have[name] {
			t.Errorf("Board.Tuning names %q, which is not a stat of Board.Stats", name)
		}
	}
	for _, tt := range []struct {
		url, want string
	}{
		{"http://h/bbs?cmd=OnceGetView", "OnceGetView"},
		{"http://h/bbs", "AllView"},
		{"http://h/bbs?cmd=Nope", ""},
	} {
		w, ok := tn.Work(tt.url)
		if w.Name != tt.want || ok != (tt.want != "") {
			t.Errorf("Work(%s) = %q, %v; want %q", tt.url, w.Name, ok, tt.want)
		}
	}
}

// tunableBoard serves the real board with 4 workers and a SQLite pool of
// 2, its limit and pool changeable while it runs.
func tunableBoard(t *testing.T) (pub, adm string) {
	t.Helper()
	st, err := open.Store(context.Background(), entity.Options{Driver: "sqlite", DSN: filepath.Join(t.TempDir(), "bbs.db"), Pool: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := bbs.New(bbs.Options{Store: st, DBName: "sqlite", Machine: machine.NewSampler(), Workers: 4, Queue: 100})
	s.SetReady(true)
	p := httptest.NewServer(s.Handler())
	t.Cleanup(p.Close)
	a := httptest.NewServer(s.AdminHandler())
	t.Cleanup(a.Close)
	resp, err := http.Post(a.URL+"/admin/reset?posts=40", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return p.URL, a.URL
}

// TestTuningKnobsOnTheRealBoard sets the knobs through Board.Tuning on the
// real admin handler and reads them back, min = max and apart.
func TestTuningKnobsOnTheRealBoard(t *testing.T) {
	ctx := context.Background()
	_, adm := tunableBoard(t)
	tn := contract.Board.Tuning
	if k, err := tn.Get(ctx, adm); err != nil || k != (watch.Knobs{Workers: 4, Pool: 2}) {
		t.Fatalf("Get = %+v, %v; want 4 workers, 2 connections", k, err)
	}
	for _, want := range []watch.Knobs{{Workers: 6, Pool: 3}, {Workers: 6, Pool: 5, PoolMin: 1}, {Workers: 2, Pool: 1}} {
		got, err := tn.Set(ctx, adm+"/", want)
		if err != nil || got != want {
			t.Fatalf("Set(%+v) = %+v, %v; want it in force", want, got, err)
		}
		if k, err := tn.Get(ctx, adm); err != nil || k != want {
			t.Errorf("Get after Set(%+v) = %+v, %v", want, k, err)
		}
	}
	if _, err := tn.Set(ctx, adm, watch.Knobs{Workers: 0, Pool: 2}); err == nil || !strings.Contains(err.Error(), "workers") {
		t.Errorf("Set(0 workers) = %v; want the board's 400 naming workers", err)
	}
	b := newBoard(t, nil) // started with no worker limit: it cannot set one live
	if _, err := tn.Set(ctx, b.adm.URL, watch.Knobs{Workers: 4, Pool: 2}); err == nil || !strings.Contains(err.Error(), "restart") {
		t.Errorf("Set on a board without a worker limit = %v; want the 409 saying to restart it", err)
	}
}

// TestTuningWorkStatsOnTheRealBoard loads each command briefly with the
// work's stats watched: AllView reads 1 query per request, OnceGetView 30
// (N+1), each with the database's time.
func TestTuningWorkStatsOnTheRealBoard(t *testing.T) {
	pub, adm := tunableBoard(t)
	for _, tt := range []struct {
		cmd     string
		queries float64
	}{{"AllView", 1}, {"OnceGetView", 30}} {
		w, ok := contract.Board.Tuning.Work(pub + "/bbs?cmd=" + tt.cmd)
		if !ok {
			t.Fatalf("Work(%s): none", tt.cmd)
		}
		wt, err := contract.Board.Watcher(watch.Options{StatsURL: adm + contract.Board.StatsPath, Stats: []watch.Stat{w.Queries, w.Database}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := loadtest.Run(context.Background(), loadtest.Settings{Requests: []loadtest.Request{{URL: pub + "/bbs?cmd=" + tt.cmd, Expect: 200}},
			Clients: 2, Duration: 1200 * time.Millisecond, Think: 5 * time.Millisecond, Watcher: wt})
		if err != nil {
			t.Fatal(err)
		}
		seen, err := watch.Of(res)
		if err != nil {
			t.Fatal(err)
		}
		q, okQ := seen.Server.Value(w.Queries.Name)
		db, okD := seen.Server.Value(w.Database.Name)
		if !okQ || !okD || q < 0.8*tt.queries || q > 1.2*tt.queries || db <= 0 {
			t.Errorf("%s: %v queries (%v), %v ms in the database (%v) per request; want about %v and some", tt.cmd, q, okQ, db, okD, tt.queries)
		}
	}
}
