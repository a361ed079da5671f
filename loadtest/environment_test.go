package loadtest

import (
	"context"
	"encoding/json"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"bbslab/machine"
)

// stubWatcher is a Watcher that returns what it is given and records
// the calls the engine makes.
type stubWatcher struct {
	w                  Watched
	started, endWindow atomic.Int32
	finished           atomic.Int32
	successes          atomic.Int64
}

func (s *stubWatcher) Start(ctx context.Context, _ Settings, _ time.Time) Watch {
	s.started.Add(1)
	return s
}
func (s *stubWatcher) EndWindow() { s.endWindow.Add(1) }
func (s *stubWatcher) Finish(successes int64, _ float64) Watched {
	s.finished.Add(1)
	s.successes.Store(successes)
	return s.w
}

func TestResultKeepsWhatTheWatcherSaw(t *testing.T) {
	srv, _ := delayServer(t, 0)
	stub := &stubWatcher{w: Watched{
		Server:      json.RawMessage(`{"url":"u","samples":3,"values":[{"name":"x","path":"a.x","kind":"gauge","value":7}]}`),
		Profiles:    json.RawMessage(`[{"kind":"cpu","file":"f.pb.gz","total":0,"top":null}]`),
		Environment: map[string]json.RawMessage{"db": json.RawMessage(`{"kind":"k"}`)},
		Warnings:    []string{"watched it"},
	}}
	res := mustRun(t, Settings{Requests: []Request{{URL: srv.URL + "/"}}, Clients: 1, Think: 5 * time.Millisecond,
		Duration: 300 * time.Millisecond, Watcher: stub})
	if stub.started.Load() != 1 || stub.endWindow.Load() != 1 || stub.finished.Load() != 1 {
		t.Errorf("watcher calls: start %d, end window %d, finish %d; want one each", stub.started.Load(), stub.endWindow.Load(), stub.finished.Load())
	}
	if got := stub.successes.Load(); got != res.Total.Successes {
		t.Errorf("Finish(successes %d); want the run's %d", got, res.Total.Successes)
	}
	b, err := res.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Environment struct {
			Generator machine.HostInfo          `json:"generator"`
			Server    map[string]map[string]any `json:"server"`
		} `json:"environment"`
		Server struct {
			Reads  int `json:"samples"`
			Values []struct {
				Name  string  `json:"name"`
				Value float64 `json:"value"`
			} `json:"values"`
		} `json:"server"`
		Profiles []struct {
			File string `json:"file"`
		} `json:"profiles"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if g := doc.Environment.Generator; g != machine.Host() {
		t.Errorf("environment.generator = %+v; want this machine's %+v", g, machine.Host())
	}
	if s := doc.Environment.Server; s["db"]["kind"] != "k" {
		t.Errorf("environment.server = %v; want the watcher's", s)
	}
	if v := doc.Server.Values; len(v) != 1 || v[0].Name != "x" || v[0].Value != 7 || doc.Server.Reads != 3 {
		t.Errorf("server %+v; want the watcher's stats", doc.Server)
	}
	if len(doc.Profiles) != 1 || doc.Profiles[0].File != "f.pb.gz" {
		t.Errorf("profiles %+v; want the watcher's", doc.Profiles)
	}
	if !slices.Contains(doc.Warnings, "watched it") {
		t.Errorf("warnings %q; want the watcher's", doc.Warnings)
	}
}

func TestRunWithoutStatsHasGeneratorOnly(t *testing.T) {
	srv, _ := delayServer(t, 0)
	res := mustRun(t, Settings{Requests: []Request{{URL: srv.URL + "/"}}, Clients: 1, Duration: 100 * time.Millisecond})
	if e := res.Environment; e == nil || e.Generator == nil || e.Server != nil {
		t.Errorf("environment without -server-stats = %+v; want the generator alone", e)
	}
}
