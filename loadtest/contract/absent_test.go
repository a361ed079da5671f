package contract_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/contract"
	"bbslab/loadtest/live"
	"bbslab/loadtest/live/feed"
	"bbslab/loadtest/watch"
	"bbslab/machine"
)

// TestAbsentStatsEndToEnd follows stats that a platform without
// /proc cannot give (machine.FakePlatform: what gopsutil gives on
// Windows) from the board's /admin/stats through the watcher to the live
// dashboard's frames: absent at every step, never 0, while the stats
// the platform gives arrive with their values.
func TestAbsentStatsEndToEnd(t *testing.T) {
	p := &machine.FakePlatform{}
	smp := machine.NewSamplerOn(p)
	p.Advance(machine.CPUTicks{User: 30, System: 10, Idle: 60}, 50*time.Millisecond)
	smp.Sample()
	b := newBoardOn(t, smp, nil)

	// /admin/stats: the paths of the stats the platform lacks are
	// missing; machine busy (100 - idle) is there, and so are the
	// server's cores (all CPUs: the platform gives no affinity) with the
	// interference on them.
	doc := b.stats(t)
	absent := map[string]string{ // stat name -> its path
		"server_steal":       "machine.own_cpus.steal_seconds_total",
		"machine_cpu_iowait": "machine.cpu.iowait",
	}
	for name, path := range absent {
		if v, ok := lookup(doc, path); ok {
			t.Errorf("/admin/stats %s (%s) = %v; want it absent", path, name, v)
		}
	}
	if v, _ := lookup(doc, "machine.cpu.idle"); v != 60.0 {
		t.Errorf("/admin/stats machine.cpu.idle = %v; want 60", v)
	}
	if v, ok := lookup(doc, "machine.own_cpus.interference_seconds_total"); !ok {
		t.Errorf("/admin/stats machine.own_cpus.interference_seconds_total absent (%v); want it", v)
	}

	// The watcher, feeding a dashboard, over a short run.
	hub := live.New()
	f := feed.New(hub, "absent stats")
	w, err := contract.Board.Watcher(watch.Options{StatsURL: b.adm.URL + "/admin/stats", OnRead: f.OnRead})
	if err != nil {
		t.Fatal(err)
	}
	s := loadtest.Settings{Requests: []loadtest.Request{{URL: b.pub.URL + "/bbs?cmd=AllView&n=5"}}, Clients: 1,
		Think: 50 * time.Millisecond, Duration: 2500 * time.Millisecond, Seed: 1, Watcher: w}
	s.Observers = append(s.Observers, f.Observer())
	f.Begin(feed.Position{Run: "only", Step: 1, Steps: 1, Clients: 1, StepSeconds: 2.5})
	res, err := loadtest.Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Done(nil); err != nil {
		t.Fatal(err)
	}

	// The watcher's stat: absent, not 0, and named in the warnings.
	watched, err := watch.Of(res)
	if err != nil || watched.Server == nil || watched.Server.Reads == 0 {
		t.Fatalf("server stats = %+v (%v); want reads", watched.Server, err)
	}
	for name := range absent {
		if v, ok := watched.Server.Value(name); ok {
			t.Errorf("watched %s = %v; want it absent", name, v)
		}
	}
	if v, ok := watched.Server.Value("machine_cpu_idle"); !ok || v != 60 {
		t.Errorf("watched machine_cpu_idle = %v (%v); want 60", v, ok)
	}
	// The platform's counters stand still: nothing interfered.
	if v, ok := watched.Server.Value("server_interference"); !ok || v != 0 {
		t.Errorf("watched server_interference = %v (%v); want 0", v, ok)
	}
	if !slices.ContainsFunc(res.Warnings, func(w string) bool {
		return strings.Contains(w, "unavailable on this target") && strings.Contains(w, "server_steal")
	}) {
		t.Errorf("warnings %q; want server_steal named unavailable", res.Warnings)
	}

	// The dashboard's frames: the CPU panel carries machine busy with its
	// value and the steal on the server's cores as absent, never as a 0.
	frames, err := hub.Frames()
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, fr := range frames {
		for _, sr := range fr.Server {
			switch sr.Name {
			case "steal on its cores":
				seen++
				if !sr.Absent || sr.Panel != contract.PanelCPU {
					t.Errorf("frame at %.1f s: %+v; want the steal absent on the CPU panel", fr.T, sr)
				}
			case "machine busy":
				if sr.Absent || sr.Value != 40 {
					t.Errorf("frame at %.1f s: %+v; want machine busy 40", fr.T, sr)
				}
			}
		}
	}
	if seen == 0 {
		t.Errorf("no frame of %d names the steal on the server's cores; want it shown as absent", len(frames))
	}
}
