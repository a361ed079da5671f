package feed

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/live"
	"bbslab/loadtest/watch"
)

// TestFeedFrames runs a real load against a target whose stats say one
// request is busy and two are queued all the time, with every fifth answer
// a 500, and checks the frames: one a second with the progress set, the
// client's figures, the server's series on their panels, the states'
// shares, then the step and the end.
func TestFeedFrames(t *testing.T) {
	t0 := time.Now()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/stats" {
			s := time.Since(t0).Seconds()
			fmt.Fprintf(w, `{"cpu": 40, "busy": %g, "queued": %g}`, s, 2*s)
			return
		}
		if n.Add(1)%5 == 0 {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()

	hub := live.New()
	f := New(hub, "test experiment")
	wo := watch.Options{StatsURL: srv.URL + "/stats", OnRead: f.OnRead, Stats: []watch.Stat{
		{Name: "cpu", Path: "cpu", Kind: watch.Gauge, Unit: "%", Panel: "CPU"},
		{Name: "queued", Path: "queued", Kind: watch.Counter, Panel: "Workers"},
		{Name: "busy", Path: "busy", Kind: watch.Counter}, // no panel: not drawn
	}}
	wo.States = []watch.State{{Name: "queued", Path: "queued"}, {Name: "busy", Path: "busy"}}
	w, err := watch.New(wo)
	if err != nil {
		t.Fatal(err)
	}
	s := loadtest.Settings{Requests: []loadtest.Request{{URL: srv.URL}}, Clients: 2, Think: 10 * time.Millisecond,
		Warmup: time.Second, Duration: 2 * time.Second, Seed: 1, Watcher: w}
	s.Observers = append(s.Observers, f.Observer())
	f.Begin(Position{Run: "only", Step: 1, Steps: 2, Clients: 2, StepSeconds: 3, After: 3})
	res, err := loadtest.Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	f.Step(StepOf("only", 2, res.Total),
		[]live.Claim{{ID: "c1", Text: "it answers", Outcome: live.Reproduced}})
	if err := f.Done(nil); err != nil {
		t.Fatalf("Done: %v", err)
	}
	frames, err := hub.Frames()
	if err != nil {
		t.Fatal(err)
	}
	if len(frames) < 4 {
		t.Fatalf("%d frames for a 3 s step; want a frame a second, the step and the end", len(frames))
	}
	seconds := frames[:len(frames)-2]
	withServer := 0
	for i, fr := range seconds {
		p := fr.Progress
		if p.Experiment != "test experiment" || p.Run != "only" || p.Step != 1 || p.Steps != 2 || p.Clients != 2 {
			t.Errorf("frame %d: progress %+v; want the position set by Begin", i, p)
		}
		if p.Left < 3 || p.Left > 6 {
			t.Errorf("frame %d: %.1f s left; want the step's rest plus the 3 s after it", i, p.Left)
		}
		if i > 0 && fr.T <= seconds[i-1].T {
			t.Errorf("frame %d at t=%v after t=%v; want time to go forward", i, fr.T, seconds[i-1].T)
		}
		c := fr.Client
		if c.Throughput <= 0 || c.P50 <= 0 || c.P50 > c.P90 || c.P90 > c.P99 {
			t.Errorf("frame %d: client %+v; want throughput and 0 < p50 <= p90 <= p99", i, c)
		}
		if len(c.Errors) != 1 || c.Errors[0].Kind != "status" || c.Errors[0].Count == 0 {
			t.Errorf("frame %d: errors %+v; want the second's 500s as status errors", i, c.Errors)
		}
		if len(fr.Server) == 0 {
			continue // before the watcher's second read
		}
		withServer++
		got := map[string]live.Series{}
		for _, s := range fr.Server {
			got[s.Name] = s
		}
		// A counter's rate divides the server's increase by the poller's
		// clock between two reads: a busy machine delays an answer between
		// the server's reading and the poller's stamp (queued 2.10 and busy
		// 1.05 at load average 16). Hence a wide bound on each rate, and a
		// narrow one on their ratio, which shares the span.
		if got["cpu"].Value != 40 || got["cpu"].Panel != "CPU" || got["cpu"].Unit != "%" || math.Abs(got["queued"].Value-2) > 0.5 || got["queued"].Panel != "Workers" {
			t.Errorf("frame %d: server %+v; want cpu 40 %% on CPU and queued 2 on Workers", i, fr.Server)
		}
		if _, ok := got["busy"]; ok {
			t.Errorf("frame %d: a reading without a panel is drawn: %+v", i, fr.Server)
		}
		if len(fr.Doing) != 2 || math.Abs(fr.Doing[0].Value-2) > 0.5 || math.Abs(fr.Doing[1].Value-1) > 0.25 ||
			math.Abs(fr.Doing[0].Value/fr.Doing[1].Value-2) > 0.02 || math.Abs(got["queued"].Value/fr.Doing[1].Value-2) > 0.02 {
			t.Errorf("frame %d: doing %+v, server %+v; want queued 2 and busy 1 (±25 %%), queued twice busy (±1 %%)", i, fr.Doing, fr.Server)
		}
	}
	if withServer == 0 {
		t.Errorf("no frame carries the server's side: %+v", seconds)
	}
	step, end := frames[len(frames)-2], frames[len(frames)-1]
	if step.Step == nil || step.Step.Run != "only" || len(step.Claims) != 1 || step.Client.Throughput != seconds[len(seconds)-1].Client.Throughput {
		t.Errorf("step frame %+v; want the step and its claim, with the figures of the second just ended", step)
	}
	if !end.Done || !end.Between || end.Progress.Left != 0 || end.Client.Throughput != 0 || step.Between {
		t.Errorf("last frame %+v after step frame %+v; want done between the seconds with nothing left, the last second's figures given once only, to the step", end, step)
	}
	if s := end.Summary; s == nil || s.Peak == nil || s.Peak.Throughput != res.Total.Throughput || s.Peak.Throughput <= 0 ||
		s.Requests != res.Total.Requests || s.Errors != res.Total.Errors || s.Errors == 0 {
		t.Errorf("last frame's summary %+v; want the step's %.1f req/s, %d requests and %d errors", s, res.Total.Throughput, res.Total.Requests, res.Total.Errors)
	}
	if err := hub.Publish(live.Frame{T: 99}); err == nil {
		t.Errorf("Publish after Done succeeded; want the hub closed")
	}
}

// TestDoneSummary publishes two steps of two runs and checks that the last
// frame heads the finished page with the experiment's own figures: the
// peak step (its run, clients and p99), the requests and errors of every
// step, the duration, while its per-second figures, after the end of load,
// are empty.
func TestDoneSummary(t *testing.T) {
	hub := live.New()
	f := New(hub, "summary")
	steps := []loadtest.Stats{
		{Clients: 5, Requests: 1000, Successes: 990, Errors: 10, Throughput: 330, P50Ms: 2, P99Ms: 9, MeanMs: 3},
		{Clients: 10, Requests: 2400, Successes: 2400, Throughput: 800, P50Ms: 4, P99Ms: 21, MeanMs: 5},
		{Clients: 20, Requests: 2100, Successes: 2095, Errors: 5, Throughput: 698, P50Ms: 9, P99Ms: 60, MeanMs: 11},
	}
	runs := []string{"small pool", "large pool", "large pool"}
	for i, st := range steps {
		f.Begin(Position{Run: runs[i], Step: i + 1, Steps: 3, Clients: st.Clients})
		f.Step(StepOf(runs[i], st.Clients, st), nil)
	}
	time.Sleep(10 * time.Millisecond) // a duration the test can tell from 0
	if err := f.Done(nil); err != nil {
		t.Fatalf("Done: %v", err)
	}
	frames, err := hub.Frames()
	if err != nil {
		t.Fatal(err)
	}
	for i, fr := range frames[:len(frames)-1] {
		if fr.Summary != nil {
			t.Errorf("frame %d (a step) carries a summary %+v; want it on the last frame only", i, fr.Summary)
		}
	}
	end := frames[len(frames)-1]
	s := end.Summary
	if !end.Done || s == nil {
		t.Fatalf("last frame %+v; want done with a summary", end)
	}
	if end.Client.Throughput != 0 {
		t.Errorf("last frame's second has throughput %v; want 0 (no load after the end): the case the summary is for", end.Client.Throughput)
	}
	want := live.Step{Run: "large pool", Clients: 10, Throughput: 800, P50: 4, P99: 21, Mean: 5, Requests: 2400}
	if s.Peak == nil || *s.Peak != want {
		t.Errorf("summary peak = %+v; want the 800 req/s step %+v", s.Peak, want)
	}
	if s.Steps != 3 || s.Requests != 5500 || s.Errors != 15 {
		t.Errorf("summary: %d steps, %d requests, %d errors; want 3, 5500 and 15", s.Steps, s.Requests, s.Errors)
	}
	if s.Duration <= 0 || s.Duration != end.T {
		t.Errorf("summary duration %v at t=%v; want the time from the start to the end, > 0", s.Duration, end.T)
	}
}

// TestNotes feeds notes before any step, while a calibration loads (its
// seconds between the seconds, with the phase and no figures), and during
// the steps, and checks that each note reaches the frames once, on a frame
// between the seconds that the history keeps, that the seconds of the
// steps are drawn, and that the notes survive the report's inlining: the
// page opened offline replays them.
func TestNotes(t *testing.T) {
	hub := live.New()
	f := New(hub, "notes")
	row := loadtest.SecondRow{Throughput: 200, Successes: 200, P50Ms: 1, P90Ms: 2, P99Ms: 3}
	notes := []string{"load generator capped at GOMAXPROCS 1", "server pinned to CPU 1",
		"calibrated on this machine: CPU per request 0.196 ms with no wait; db_latency = 2.245ms puts graph 1 at 5 clients at server CPU 63.7 % of its 56.1 with no wait (target 60 ± 5), after 2 probes"}
	f.Note(notes[0])
	f.Begin(Position{Run: "calibration: graph 1", Phase: "calibrating", Step: 1, Steps: 5, Clients: 5, StepSeconds: 4, After: 60})
	f.Note(notes[1])
	f.second(row)
	f.second(row)
	f.Note(notes[2])
	f.Begin(Position{Run: "graph 1", Step: 1, Steps: 1, Clients: 5, StepSeconds: 4})
	f.second(row)
	f.Step(live.Step{Run: "graph 1", Clients: 5, Throughput: 200, Requests: 800}, nil)
	if err := f.Done(nil); err != nil {
		t.Fatalf("Done: %v", err)
	}
	f.Note("after the end") // dropped: the page has ended
	if err := f.Err(); err != nil {
		t.Errorf("a note after Done: Err() = %v; want it dropped, not a failed publication", err)
	}
	frames, err := hub.Frames()
	if err != nil {
		t.Fatal(err)
	}
	type kind struct {
		between bool
		phase   string
		notes   int
		drawn   bool // has a second's figures
	}
	want := []kind{
		{between: true, notes: 1},                       // before any step: no progress yet
		{between: true, phase: "calibrating", notes: 1}, // the calibration's server pinned
		{between: true, phase: "calibrating"},           // the calibration's seconds
		{between: true, phase: "calibrating"},
		{between: true, phase: "calibrating", notes: 1}, // its summary
		{drawn: true},   // the step's second
		{drawn: true},   // the step, with its last second's figures
		{between: true}, // the end
	}
	if len(frames) != len(want) {
		t.Fatalf("%d frames: %+v; want %d", len(frames), frames, len(want))
	}
	for i, fr := range frames {
		got := kind{between: fr.Between, phase: fr.Progress.Phase, notes: len(fr.Notes), drawn: fr.Client.Throughput > 0}
		if got != want[i] {
			t.Errorf("frame %d: %+v; want %+v (%+v)", i, got, want[i], fr)
		}
	}
	if p := frames[1].Progress; p.Run != "calibration: graph 1" || p.Step != 1 || p.Steps != 5 || p.Left < 60 {
		t.Errorf("a note during the calibration has progress %+v; want the calibration's run, probe 1 of 5 and 60 s and more left", p)
	}

	var b bytes.Buffer
	if err := live.WriteReport(&b, frames, "notes"); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	const open = `<script id="frames" type="application/json">`
	i := strings.Index(page, open)
	j := strings.Index(page[max(i, 0):], "</script>")
	if i < 0 || j < 0 {
		t.Fatalf("the report has no inlined frames")
	}
	var inlined []live.Frame
	if err := json.Unmarshal([]byte(page[i+len(open):i+j]), &inlined); err != nil {
		t.Fatalf("the report's frames: %v", err)
	}
	var got []string
	for _, fr := range inlined {
		got = append(got, fr.Notes...)
	}
	if !slices.Equal(got, notes) {
		t.Errorf("the report's frames carry notes %q; want %q, each once", got, notes)
	}
}

// TestStepLongAfterItsLastSecond: a step published when its last second is
// long past rides between the seconds, so that the page does not draw an
// empty second at zero.
func TestStepLongAfterItsLastSecond(t *testing.T) {
	hub := live.New()
	f := New(hub, "late step")
	f.Begin(Position{Run: "r", Step: 1, Steps: 1, Clients: 1})
	f.second(loadtest.SecondRow{Throughput: 10, Successes: 10, P50Ms: 1, P90Ms: 1, P99Ms: 1})
	f.mu.Lock()
	f.lastAt = f.lastAt.Add(-2 * time.Second)
	f.mu.Unlock()
	f.Step(live.Step{Run: "r", Clients: 1, Throughput: 10, Requests: 10}, nil)
	frames, err := hub.Frames()
	if err != nil {
		t.Fatal(err)
	}
	if st := frames[len(frames)-1]; st.Step == nil || !st.Between || st.Client.Throughput != 0 {
		t.Errorf("step frame %+v; want the step between the seconds, with no figures", st)
	}
}
