package merge

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/text"
	"bbslab/machine"
)

// fakeResult builds a result of one label "x" over 10 s with n samples of
// each latency and errs errors of kind "status".
func fakeResult(clients int, lat map[time.Duration]int64, errs int64) *loadtest.Result {
	h := loadtest.NewHistogram()
	var ok int64
	for d, n := range lat {
		h.RecordN(d, n)
		ok += n
	}
	var ek map[string]int64
	if errs > 0 {
		ek = map[string]int64{"status": errs}
	}
	t := loadtest.NewTally()
	t.AddStats(&loadtest.Stats{Successes: ok, ErrorKinds: ek, Histogram: h})
	st := t.Stats("x", clients, 10)
	tot := st
	tot.Label = "TOTAL"
	tot.Histogram = h.Clone()
	return &loadtest.Result{Schema: loadtest.SchemaVersion, Settings: loadtest.Settings{Clients: clients}, Labels: []loadtest.Stats{st}, Total: tot, MeasuredSeconds: 10,
		Series: []loadtest.SecondRow{{T: 1, Successes: ok, Histogram: h.Clone()}}}
}

// within reports whether got is within frac of want.
func within(got, want, frac float64) bool {
	return got >= want*(1-frac) && got <= want*(1+frac)
}

func TestMergeIsExact(t *testing.T) {
	a := fakeResult(10, map[time.Duration]int64{time.Millisecond: 990, 100 * time.Millisecond: 10}, 1)
	b := fakeResult(20, map[time.Duration]int64{2 * time.Millisecond: 1000}, 0)
	m, err := Results([]*loadtest.Result{a, b}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	all := loadtest.NewHistogram()
	all.Merge(a.Total.Histogram)
	all.Merge(b.Total.Histogram)
	if m.Total.Requests != 2001 || m.Total.Errors != 1 || m.Settings.Clients != 30 || m.Total.Clients != 30 {
		t.Errorf("merged totals %+v; want 2001 requests, 1 error, 30 clients", m.Total)
	}
	for _, q := range []float64{0.5, 0.99, 0.999} {
		if got, want := m.Total.Histogram.Quantile(q), all.Quantile(q); got != want {
			t.Errorf("merged q%.3f = %v; want %v", q, got, want)
		}
	}
	if m.Total.Throughput != a.Total.Throughput+b.Total.Throughput {
		t.Errorf("merged throughput %.1f; want the sum %.1f", m.Total.Throughput, a.Total.Throughput+b.Total.Throughput)
	}
	if len(m.Series) != 1 || m.Series[0].Successes != 2000 || len(m.Generators) != 2 {
		t.Errorf("merged series %+v generators %d", m.Series, len(m.Generators))
	}
	if want := ms(all.Quantile(0.99)); m.Series[0].P99Ms != want {
		t.Errorf("merged second's p99 %.3f ms; want %.3f ms, the merged histogram's", m.Series[0].P99Ms, want)
	}
	// Survives JSON.
	bts, err := m.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	var back loadtest.Result
	if err := json.Unmarshal(bts, &back); err != nil {
		t.Fatal(err)
	}
	if back.Total.Histogram.Quantile(0.999) != all.Quantile(0.999) {
		t.Errorf("merged histogram changed through JSON")
	}
}

func TestMergeKeepsStatusCodesAndErrorKinds(t *testing.T) {
	a := fakeResult(1, map[time.Duration]int64{time.Millisecond: 3}, 0)
	b := fakeResult(1, map[time.Duration]int64{time.Millisecond: 2}, 0)
	a.Labels[0].StatusCodes = map[string]int64{"200": 3, "0": 1}
	a.Labels[0].ErrorSet = map[string]int64{"dial tcp: refused": 1}
	a.Labels[0].ErrorKinds = map[string]int64{"cutoff": 3}
	b.Labels[0].StatusCodes = map[string]int64{"200": 2, "503": 4}
	b.Labels[0].ErrorKinds = map[string]int64{"cutoff": 3, "status": 4}
	m, err := Results([]*loadtest.Result{a, b}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Total.StatusCodes; got["200"] != 5 || got["503"] != 4 || got["0"] != 1 || m.Total.ErrorSet["dial tcp: refused"] != 1 {
		t.Errorf("merged status codes %v, error set %v; want 200:5 503:4 0:1 and the refused text", got, m.Total.ErrorSet)
	}
	if got := m.Total.ErrorKinds; got["cutoff"] != 6 || got["status"] != 4 || m.Total.Errors != 10 {
		t.Errorf("merged errors %d by kind %v; want 10: cutoff 6, status 4", m.Total.Errors, got)
	}
}

// TestMergeOptionalFigures checks that a figure one generator's OS did not
// give leaves the merged figure out rather than summing the others.
func TestMergeOptionalFigures(t *testing.T) {
	v := 40.0
	with := &v
	if got := mergeOpt(true, nil, with, func(a, b float64) float64 { return a + b }); got == nil || *got != 40 {
		t.Errorf("mergeOpt(first, 40) = %v; want 40", got)
	}
	if got := mergeOpt(false, with, nil, func(a, b float64) float64 { return a + b }); got != nil {
		t.Errorf("mergeOpt(40, absent) = %v; want absent", *got)
	}
	if got := mergeOpt(false, with, with, func(a, b float64) float64 { return a + b }); got == nil || *got != 80 {
		t.Errorf("mergeOpt(40, 40) = %v; want 80", got)
	}
	a, b := fakeResult(1, map[time.Duration]int64{time.Millisecond: 1}, 0), fakeResult(1, map[time.Duration]int64{time.Millisecond: 1}, 0)
	a.Cost.CPUSeconds, a.Cost.CPUPercent = ptr(1.5), ptr(20.0)
	b.Cost.CPUPercent = ptr(30.0)
	m, err := Results([]*loadtest.Result{a, b}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Cost.CPUSeconds != nil || m.Cost.CPUPercent == nil || *m.Cost.CPUPercent != 30 {
		t.Errorf("merged cpu seconds %v, percent %v; want absent (one generator lacks it) and the larger 30", m.Cost.CPUSeconds, m.Cost.CPUPercent)
	}
}

func ptr[T any](v T) *T { return &v }

// TestMergeKeepsEachGeneratorsCores checks that the use of a generator's
// CPUs, its machine's alone, is kept per generator and not merged.
func TestMergeKeepsEachGeneratorsCores(t *testing.T) {
	a, b := fakeResult(1, map[time.Duration]int64{time.Millisecond: 1}, 0), fakeResult(1, map[time.Duration]int64{time.Millisecond: 1}, 0)
	a.Cost.Cores = &loadtest.CoresUse{CPUs: []int{0}, Busy: 50, Interference: 2}
	b.Cost.Cores = &loadtest.CoresUse{CPUs: []int{1}, Busy: 40, Interference: 1}
	m, err := Results([]*loadtest.Result{a, b}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Cost.Cores != nil || len(m.Generators) != 2 || m.Generators[1].Cores == nil || m.Generators[1].Cores.CPUs[0] != 1 {
		t.Errorf("merged cores %+v, generators %+v; want none merged and each generator's kept", m.Cost.Cores, m.Generators)
	}
	var out strings.Builder
	if err := text.WriteSummary(&out, m); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "generator 2: its CPUs [1]") {
		t.Errorf("merged summary:\n%s\nwant each generator's CPUs", out.String())
	}
}

// envResult is a result with the given generator and server database
// version.
func envResult(cpu string, cpus int, dbVersion string) *loadtest.Environment {
	h := machine.Host()
	h.CPUModel, h.LogicalCPUs = cpu, cpus
	return &loadtest.Environment{Generator: &h, Server: map[string]json.RawMessage{
		"database": json.RawMessage(`{"kind":"postgres","server_version":"` + dbVersion + `"}`),
		"config":   json.RawMessage(`{"pool":10}`),
	}}
}

func TestMergeKeepsEnvironments(t *testing.T) {
	a := fakeResult(2, map[time.Duration]int64{time.Millisecond: 10}, 0)
	b := fakeResult(3, map[time.Duration]int64{time.Millisecond: 10}, 0)
	a.Environment, b.Environment = envResult("Xeon", 2, "16.4"), envResult("EPYC", 8, "16.4")
	m, err := Results([]*loadtest.Result{a, b}, Options{})
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
	b.Environment = envResult("EPYC", 8, "15.2")
	if m, err = Results([]*loadtest.Result{a, b}, Options{}); err != nil {
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
	back, err := loadtest.ReadResult(path)
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

// TestGeneratorsStartedTogether runs two generators given one StartAt
// and merges them: their windows are the same to the nanosecond, so the
// merge finds no skew, the 0.5 s window, each one's start lag, and the
// sum of their throughputs.
func TestGeneratorsStartedTogether(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	s := loadtest.Settings{Requests: []loadtest.Request{{URL: srv.URL}}, Clients: 2, Think: 10 * time.Millisecond, Model: loadtest.ModelRate,
		Warmup: 200 * time.Millisecond, Duration: 500 * time.Millisecond, StartAt: time.Now().Add(300 * time.Millisecond), Seed: 1}
	var res [2]*loadtest.Result
	var errs [2]error
	var wg sync.WaitGroup
	for i := range res {
		wg.Go(func() { res[i], errs[i] = loadtest.Run(context.Background(), s) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("generator %d: %v", i+1, err)
		}
	}
	m, err := Results(res[:], Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := m.Overlap
	if o == nil || o.MaxStartSkewMs != 0 || o.MaxEndSkewMs != 0 || o.Seconds != 0.5 || o.Warning != "" || len(o.Generators) != 2 || o.Generators[1].StartLagMs != res[1].StartLagMs {
		t.Fatalf("merged overlap %+v; want two generators, no skew, the 0.5 s window", o)
	}
	if sum := res[0].Total.Throughput + res[1].Total.Throughput; !within(m.Total.Throughput, sum, 1e-9) {
		t.Errorf("merged throughput %.3f; want the generators' sum %.3f (one window)", m.Total.Throughput, sum)
	}
}
