package loadtest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestJSONAndJTLRoundTrip(t *testing.T) {
	srv, _ := delayServer(t, time.Millisecond)
	dir := t.TempDir()
	jtlPath := filepath.Join(dir, "run.jtl")
	jf, err := os.Create(jtlPath)
	if err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, Settings{
		Requests: []Request{{Label: "home", URL: srv.URL, Weight: 3}, {Label: "missing, really", URL: srv.URL + "/x", Expect: 404}},
		Clients:  3, MaxRequests: 300, JTL: jf, Name: "round trip",
	})
	jf.Close()
	jsonPath := filepath.Join(dir, "run.json")
	if err := res.WriteJSON(jsonPath); err != nil {
		t.Fatal(err)
	}
	back, err := ReadResult(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	if back.Schema != SchemaVersion || back.Kind != "run" {
		t.Errorf("schema %d kind %q; want %d run", back.Schema, back.Kind, SchemaVersion)
	}
	if back.Total.Requests != 300 || back.Total.Requests != res.Total.Requests || back.Settings.Clients != 3 || back.Settings.MaxRequests != 300 {
		t.Errorf("read back total %d settings %+v; want 300 requests of 3 clients", back.Total.Requests, back.Settings)
	}
	if got, want := back.Total.Histogram.Quantile(0.99), res.Total.Histogram.Quantile(0.99); got != want || back.Total.Histogram.Count() != res.Total.Histogram.Count() {
		t.Errorf("histogram read back: p99 %v count %d; want %v %d", got, back.Total.Histogram.Count(), want, res.Total.Histogram.Count())
	}
	if len(back.Labels) != 2 || back.Labels[1].Label != "missing, really" {
		t.Fatalf("labels %+v", back.Labels)
	}
	// With two labels every second is split by label.
	var perLabel int64
	for _, row := range back.Series {
		if len(row.Labels) != 2 || row.Labels[1].Label != "missing, really" {
			t.Fatalf("series row %+v; want two labels", row)
		}
		perLabel += row.Labels[0].Successes + row.Labels[1].Errors
		if row.Labels[0].Successes != row.Successes {
			t.Errorf("second %.1f: label home has %d successes, the row %d", row.T, row.Labels[0].Successes, row.Successes)
		}
		if n := row.Histogram.Count(); n != row.Successes || n != row.Labels[0].Histogram.Count()+row.Labels[1].Histogram.Count() {
			t.Errorf("second %.1f: the row's histogram holds %d latencies; want its %d successes, its labels' together", row.T, n, row.Successes)
		}
	}
	if perLabel != 300 {
		t.Errorf("per-label seconds add up to %d requests; want 300", perLabel)
	}
	// The second label expects 404 but gets 200: status errors.
	if n := back.Labels[1].Requests; n == 0 || back.Total.ErrorKinds["status"] != n || back.Labels[0].Errors != 0 {
		t.Errorf("errors %v; want %d status errors, all on the second label", back.Total.ErrorKinds, n)
	}

	b, _ := os.ReadFile(jtlPath)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if lines[0] != JTLHeader || len(lines) != 301 {
		t.Fatalf("JTL: header %q and %d lines; want the JMeter header and 300 lines", lines[0], len(lines)-1)
	}
	if f := strings.Split(lines[1], ","); len(f) < 17 {
		t.Errorf("JTL line %q has %d fields; want 17", lines[1], len(f))
	}
	// Package resultfile reads the JTL file back (TestJTLRoundTrip).
}

// JMeter (CSVSaveService.splitHeader, 5.x) accepts a header only when every
// column is one it knows and the columns come in its own order; it then
// reads each line by position in that order. jmeterColumns is that order.
var jmeterColumns = []string{"timeStamp", "elapsed", "label", "responseCode", "responseMessage", "threadName",
	"dataType", "success", "failureMessage", "bytes", "sentBytes", "grpThreads", "allThreads", "URL", "Filename",
	"Latency", "Encoding", "SampleCount", "ErrorCount", "Hostname", "IdleTime", "Connect"}

func TestJTLHeaderAsJMeterReadsIt(t *testing.T) {
	pos := map[string]int{}
	for i, c := range jmeterColumns {
		pos[c] = i
	}
	prev := -1
	for i, c := range strings.Split(JTLHeader, ",") {
		p, ok := pos[c]
		if !ok {
			t.Fatalf("column %d %q is not one JMeter knows", i+1, c)
		}
		if p <= prev {
			t.Fatalf("column %d %q is out of JMeter's order", i+1, c)
		}
		prev = p
	}
}

// fakeResult builds a result with n samples of each latency.
func fakeResult(clients int, lat map[time.Duration]int64, errs int64) *Result {
	h := NewHistogram()
	var ok int64
	for d, n := range lat {
		h.RecordN(d, n)
		ok += n
	}
	var ek map[string]int64
	if errs > 0 {
		ek = map[string]int64{"status": errs}
	}
	st := (&Tally{hist: h, ok: ok, errs: ek}).Stats("x", clients, 10)
	tot := st
	tot.Label = "TOTAL"
	tot.Histogram = h.Clone()
	return &Result{Schema: SchemaVersion, Settings: Settings{Clients: clients}, Labels: []Stats{st}, Total: tot, MeasuredSeconds: 10,
		Series: []SecondRow{{T: 1, Successes: ok, Histogram: h.Clone()}}}
}

func TestSweepJSON(t *testing.T) {
	srv, _ := delayServer(t, 0)
	var seen []int
	runs, err := Sweep(t.Context(), Settings{Requests: []Request{{URL: srv.URL}}, Think: 20 * time.Millisecond, Model: ModelRate,
		Warmup: 100 * time.Millisecond, Duration: 400 * time.Millisecond, Name: "fast"}, []int{1, 4},
		func(ctx context.Context, s Settings) (*Result, error) {
			seen = append(seen, s.Clients)
			return Run(ctx, s)
		})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || len(seen) != 2 || seen[1] != 4 || runs[1].Total.Clients != 4 {
		t.Fatalf("sweep runs %d, steps %v", len(runs), seen)
	}
	if runs[1].Total.Throughput < 2.5*runs[0].Total.Throughput {
		t.Errorf("throughput at 4 clients %.1f vs 1 client %.1f; want about 4×", runs[1].Total.Throughput, runs[0].Total.Throughput)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "sweep.json")
	if err := WriteSweepJSON(p, "fast", runs); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	var back SweepFile
	if err == nil {
		err = json.Unmarshal(b, &back)
	}
	if err != nil || back.Kind != "sweep" || back.Schema != SchemaVersion || len(back.Runs) != 2 || back.Runs[1].Total.Requests != runs[1].Total.Requests {
		t.Fatalf("sweep file read back = %+v, %v; want a sweep of 2 runs", back, err)
	}
}
