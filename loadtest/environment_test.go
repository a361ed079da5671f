package loadtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bbslab/machine"
)

// envTarget serves a page and a stats JSON that names its environment
// the way the board does (database, host, config) next to a reading.
func envTarget(t *testing.T, version string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/admin/stats" {
			fmt.Fprintf(w, `{"goroutines": 9, "database": {"kind": "postgres", "server_version": %q},
				"host": {"cpu_model": "Board CPU", "logical_cpus": 4}, "config": {"pool": 10, "admin_token": "(set)"}}`, version)
			return
		}
		w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func envRun(t *testing.T, srv *httptest.Server, keys []string) *Result {
	t.Helper()
	return mustRun(t, Settings{Requests: []Request{{URL: srv.URL + "/"}}, Clients: 1, Think: 5 * time.Millisecond,
		Duration: 300 * time.Millisecond, StatsURL: srv.URL + "/admin/stats", StatsEnvironment: keys})
}

func TestResultRecordsEnvironment(t *testing.T) {
	srv := envTarget(t, "16.4")
	res := envRun(t, srv, nil)
	b, err := res.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Environment struct {
			Generator machine.HostInfo          `json:"generator"`
			Server    map[string]map[string]any `json:"server"`
		} `json:"environment"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	g := doc.Environment.Generator
	if g != machine.Host() {
		t.Errorf("environment.generator = %+v; want this machine's %+v", g, machine.Host())
	}
	s := doc.Environment.Server
	if s["database"]["server_version"] != "16.4" || s["host"]["cpu_model"] != "Board CPU" || s["config"]["pool"] != 10.0 {
		t.Errorf("environment.server = %v; want database, host and config copied whole", s)
	}
	if _, ok := s["goroutines"]; ok {
		t.Errorf("environment.server copied %q, which is a reading, not one of the environment's keys", "goroutines")
	}

	// The caller names the keys; a key the server lacks is left out.
	res = envRun(t, srv, []string{"database", "nosuch"})
	if e := res.Environment; e == nil || len(e.Server) != 1 || string(e.Server["database"]) != `{"kind":"postgres","server_version":"16.4"}` {
		t.Errorf("with keys database, nosuch: environment %+v; want the database alone", e)
	}
}

func TestRunWithoutStatsHasGeneratorOnly(t *testing.T) {
	srv := envTarget(t, "16.4")
	res := mustRun(t, Settings{Requests: []Request{{URL: srv.URL + "/"}}, Clients: 1, Duration: 100 * time.Millisecond})
	if e := res.Environment; e == nil || e.Generator == nil || e.Server != nil {
		t.Errorf("environment without -server-stats = %+v; want the generator alone", e)
	}
}

// envResult is a result with the given generator and server database
// version.
func envResult(cpu string, cpus int, dbVersion string) *Result {
	h := machine.Host()
	h.CPUModel, h.LogicalCPUs = cpu, cpus
	return &Result{Environment: &Environment{Generator: &h, Server: map[string]json.RawMessage{
		"database": json.RawMessage(`{"kind":"postgres","server_version":"` + dbVersion + `"}`),
		"config":   json.RawMessage(`{"pool":10}`),
	}}}
}

func TestEnvironmentWarning(t *testing.T) {
	a, same := envResult("Xeon", 2, "16.4"), envResult("Xeon", 2, "16.4")
	var b strings.Builder
	WriteEnvironmentWarning(&b, []*Result{a, same, {}}) // a JTL result has no environment
	if b.Len() != 0 {
		t.Errorf("warning for results from one environment: %q; want none", b.String())
	}
	other := envResult("EPYC", 8, "15.2")
	b.Reset()
	WriteEnvironmentWarning(&b, []*Result{a, same, other})
	got := b.String()
	for _, want := range []string{"WARNING: these results ran in different environments", "generator CPU model: Xeon vs EPYC",
		"generator logical CPUs: 2 vs 8", "server database.server_version: 16.4 vs 15.2"} {
		if !strings.Contains(got, want) {
			t.Errorf("warning %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "config") || strings.Contains(got, "kernel") {
		t.Errorf("warning %q names facts that are the same", got)
	}
}

func TestFlatDifferencesBounded(t *testing.T) {
	a, b := map[string]any{}, map[string]any{}
	for i := range maxDifferences + 3 {
		a[fmt.Sprintf("k%02d", i)], b[fmt.Sprintf("k%02d", i)] = i, i+1
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	d := flatDifferences(map[string]json.RawMessage{"config": ja}, map[string]json.RawMessage{"config": jb, "database": json.RawMessage(`{"kind":"sqlite"}`)})
	if len(d) != maxDifferences+1 || d[0] != "config.k00: 0 vs 1" || d[maxDifferences] != "4 more" {
		t.Errorf("flatDifferences = %q; want %d differences then \"4 more\" (3 keys and the absent database)", d, maxDifferences)
	}
}

func TestMergeKeepsEnvironments(t *testing.T) {
	a := fakeResult(2, map[time.Duration]int64{time.Millisecond: 10}, 0)
	b := fakeResult(3, map[time.Duration]int64{time.Millisecond: 10}, 0)
	a.Environment, b.Environment = envResult("Xeon", 2, "16.4").Environment, envResult("EPYC", 8, "16.4").Environment
	m, err := Merge([]*Result{a, b})
	if err != nil {
		t.Fatal(err)
	}
	e := m.Environment
	if e == nil || e.Generator.CPUModel != "Xeon" || len(e.Generators) != 2 || e.Generators[1].CPUModel != "EPYC" || e.Server == nil {
		t.Fatalf("merged environment = %+v; want the first generator, both in Generators, the server", e)
	}
	for _, w := range m.Warnings {
		if strings.Contains(w, "different server") {
			t.Errorf("warning %q; the generators read one server", w)
		}
	}
	b.Environment = envResult("EPYC", 8, "15.2").Environment
	if m, err = Merge([]*Result{a, b}); err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(m.Warnings, "\n"); !strings.Contains(w, "generator 2 read a different server (database.server_version: 16.4 vs 15.2)") {
		t.Errorf("warnings %q; want one naming the server that differs", w)
	}
	// A merged result written and read again keeps its environment.
	path := filepath.Join(t.TempDir(), "m.json")
	if err := m.WriteJSON(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadResult(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg bytes.Buffer
	if back.Environment != nil {
		json.Compact(&cfg, back.Environment.Server["config"])
	}
	if back.Environment == nil || len(back.Environment.Generators) != 2 || cfg.String() != `{"pool":10}` {
		t.Errorf("read back environment = %+v", back.Environment)
	}
}
