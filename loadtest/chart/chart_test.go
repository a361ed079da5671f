package chart

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/watch"
)

// target answers every request; the first 10 take 5 ms.
func target(t *testing.T) *httptest.Server {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= 10 {
			time.Sleep(5 * time.Millisecond)
		}
		w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// checkFiles fails unless every file is a real SVG or PNG chart.
func checkFiles(t *testing.T, files []string) {
	t.Helper()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil || len(b) < 500 {
			t.Errorf("chart %s: %d bytes, %v", f, len(b), err)
		}
		if strings.HasSuffix(f, ".png") && !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("%s is not a PNG", f)
		}
		if strings.HasSuffix(f, ".svg") && !bytes.Contains(b, []byte("<svg")) {
			t.Errorf("%s is not an SVG", f)
		}
	}
}

func TestSweepAndTimelineCharts(t *testing.T) {
	srv := target(t)
	runs, err := loadtest.Sweep(t.Context(), loadtest.Settings{Requests: []loadtest.Request{{URL: srv.URL}}, Think: 20 * time.Millisecond, Model: loadtest.ModelRate,
		Warmup: 100 * time.Millisecond, Duration: 400 * time.Millisecond, Name: "fast", Seed: 1}, []int{1, 4}, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files, err := WriteSweepCharts(filepath.Join(dir, "s"), []Curve{{Name: "a", Runs: runs}, {Name: "b", Runs: runs}}, Server{})
	if err != nil {
		t.Fatal(err)
	}
	tl, err := WriteTimelineCharts(filepath.Join(dir, "s"), []Curve{{Name: "a", Runs: runs[:1]}})
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, tl...)
	if len(files) != 8 {
		t.Errorf("chart files %v; want 8 (2 sweep + 2 timeline charts, SVG and PNG)", files)
	}
	checkFiles(t, files)
}

// TestServerChartsFollowReadings checks that the server charts draw the
// readings their metadata places on them, and only those.
func TestServerChartsFollowReadings(t *testing.T) {
	res := func(clients int, vals ...watch.ServerValue) *loadtest.Result {
		r := &loadtest.Result{Total: loadtest.Stats{Clients: clients}}
		if err := (watch.Seen{Server: &watch.ServerStats{Reads: 2, Values: vals}}).Put(r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	runs := []*loadtest.Result{
		res(1, watch.ServerValue{Name: "proc", Value: 20}, watch.ServerValue{Name: "idle", Value: 70}, watch.ServerValue{Name: "q", Value: 0.5}),
		res(2, watch.ServerValue{Name: "proc", Value: 40}, watch.ServerValue{Name: "idle", Value: 50}, watch.ServerValue{Name: "q", Value: 1.5}),
	}
	srv := Server{
		Charts: []watch.Chart{{Name: "cpu", Title: "Server CPU", YLabel: "%"}, {Name: "wait", Title: "Waits", YLabel: "ms"}, {Name: "none", Title: "Nothing drawn"}},
		Stats: []watch.Stat{
			{Name: "proc", Chart: "cpu", Legend: "process"},
			{Name: "idle", Chart: "cpu", Legend: "machine busy", Dashed: true, Complement: true},
			{Name: "q", Chart: "wait", Legend: "queue"},
			{Name: "absent", Chart: "none", Legend: "nowhere"},
		},
	}
	dir := t.TempDir()
	files, err := WriteSweepCharts(filepath.Join(dir, "s"), []Curve{{Name: "run", Runs: runs}}, srv)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(files, " ")
	for _, want := range []string{"s-server-cpu.svg", "s-server-wait.png"} {
		if !strings.Contains(got, want) {
			t.Errorf("charts %v; want %s", files, want)
		}
	}
	if strings.Contains(got, "s-server-none") {
		t.Errorf("charts %v; want no chart for a chart none of whose readings the runs have", files)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "s-server-cpu.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Server CPU (process solid, machine busy dashed)", "run process", "run machine busy"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("s-server-cpu.svg lacks %q", want)
		}
	}
	checkFiles(t, files)
}

func TestColdStartChart(t *testing.T) {
	srv := target(t)
	res, err := loadtest.Run(t.Context(), loadtest.Settings{Requests: []loadtest.Request{{URL: srv.URL}}, Clients: 1, Think: time.Millisecond,
		Warmup: 50 * time.Millisecond, MaxRequests: 60, TimelineRequests: 50, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files, err := WriteColdStartChart(filepath.Join(dir, "c"), []Curve{{Name: "fake", Runs: []*loadtest.Result{res}}})
	if err != nil || len(files) != 4 {
		t.Fatalf("WriteColdStartChart = %v, %v; want an SVG and a PNG of both charts", files, err)
	}
	svg, _ := os.ReadFile(filepath.Join(dir, "c-coldstart.svg"))
	if !strings.Contains(string(svg), "warm-up ends") {
		t.Errorf("%s lacks the warm-up mark", files[0])
	}
	checkFiles(t, files)
}
