package fleetwatch

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"

	"bbslab/loadtest/watch"
)

// TestSharedCores reads two replicas on the same cores, each reading the
// cores' busy time a little apart: with SharedCores the sum's
// interference is their mean busy time less both replicas' CPU, its steal
// the cores' own; without, both are the replicas' added up (what each
// counts, the other replica included), and the target gives none.
func TestSharedCores(t *testing.T) {
	// r1: CPU 30 s, cores busy 100 s, steal 4; r2: CPU 50 s, cores busy
	// 102 s (read a moment later), steal 6.
	doc := func(cpu, busy, steal float64) string {
		return fmt.Sprintf(`{"cpu_seconds":%g,"own":{"interference_seconds":%g,"steal_seconds":%g,"busy":50}}`, cpu, busy-cpu, steal)
	}
	serve := func(body string) string {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) }))
		t.Cleanup(s.Close)
		return s.URL
	}
	reps := []Replica{{Name: "r1", StatsURL: serve(doc(30, 100, 4))}, {Name: "r2", StatsURL: serve(doc(50, 102, 6))}}
	cpu := watch.Stat{Name: "cpu", Path: "cpu_seconds", Kind: watch.Counter, Scale: 100, Unit: "% of a core"}
	inter := watch.Stat{Name: "others", Path: "own.interference_seconds", Kind: watch.Counter, Scale: 100, Unit: "% of a core"}
	steal := watch.Stat{Name: "steal", Path: "own.steal_seconds", Kind: watch.Counter, Scale: 100, Unit: "% of a core"}
	busy := watch.Stat{Name: "busy", Path: "own.busy", Kind: watch.Gauge, Unit: "%"}
	one := watch.Target{Stats: []watch.Stat{cpu, inter, steal, busy}, ProcessCPU: cpu, Interference: inter, Steal: steal}
	for _, tt := range []struct {
		shared             bool
		others, stealing   float64
		interference, stat string
	}{
		{true, 101 - 80, 5, "others", "sum.own.interference_seconds"},
		{false, 70 + 52, 10, "", ""},
	} {
		f, err := New(Options{Target: one, Replicas: reps, SharedCores: tt.shared})
		if err != nil {
			t.Fatal(err)
		}
		d := f.Read(context.Background())
		o, _ := watch.LookupNumber(d, "sum.own.interference_seconds")
		s, _ := watch.LookupNumber(d, "sum.own.steal_seconds")
		b, _ := watch.LookupNumber(d, "sum.own.busy")
		c, _ := watch.LookupNumber(d, "sum.cpu_seconds")
		if math.Abs(o-tt.others) > 1e-9 || math.Abs(s-tt.stealing) > 1e-9 || b != 50 || c != 80 {
			t.Errorf("shared %v: sum's others %v, steal %v, busy %v %%, CPU %v; want %v, %v, 50 (a mean), 80", tt.shared, o, s, b, c, tt.others, tt.stealing)
		}
		tg := f.Target()
		if tg.Interference.Name != tt.interference || tg.Interference.Path != tt.stat {
			t.Errorf("shared %v: the fleet's interference %q at %q; want %q at %q", tt.shared, tg.Interference.Name, tg.Interference.Path, tt.interference, tt.stat)
		}
		f.Close()
	}
	// A replica that lacks the figure leaves it out of the sum, rather
	// than give the others' alone as the cores'.
	f, err := New(Options{Target: one, SharedCores: true, Replicas: append(reps[:1:1], Replica{Name: "r3", StatsURL: serve(`{"cpu_seconds":5}`)})})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := f.Read(context.Background())
	if v, ok := watch.LookupNumber(d, "sum.own.interference_seconds"); ok {
		t.Errorf("with r3's interference absent, the sum's = %v; want absent", v)
	}
}

// TestStatOf maps one board's stats into the fleet's document: from the
// sum, or, with a path in a section of its own, as it is.
func TestStatOf(t *testing.T) {
	for _, tt := range []struct{ path, metric, want string }{
		{"workers.busy_seconds_total", "bbs_busy", "sum.workers.busy_seconds_total"},
		{"haproxy.backend.current_queue", "", "haproxy.backend.current_queue"},
		{"postgres.sessions_total", "", "postgres.sessions_total"},
		{"replicas.r2.workers.busy", "", "replicas.r2.workers.busy"},
		{"haproxyish.x", "", "sum.haproxyish.x"},
		{"", "bbs_busy", ""},
	} {
		got := StatOf(watch.Stat{Name: "s", Path: tt.path, Metric: tt.metric, Per: "p"})
		if got.Path != tt.want || got.Metric != "" || got.Per != "" || tt.want != "" && got.Name != "s" {
			t.Errorf("StatOf(path %q, metric %q) = %+v; want path %q, no metric", tt.path, tt.metric, got, tt.want)
		}
	}
}
