package live_test

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"bbslab/internal/browsertest"
	"bbslab/loadtest/live"

	"github.com/chromedp/chromedp"
)

var updateScreenshots = flag.Bool("update-screenshots", false, "write the dashboard's screenshot to docs/images/dashboard-synthetic.png")

// The synthetic experiment's notes: the first comes with the
// calibration's first frame, the second with its last.
var notes = []string{"server pinned to CPU 1; load generator pinned to CPU 0",
	"calibrated on this machine: CPU per request 0.196 ms with no wait; db_latency = 2.245ms puts OnceGetView at 5 clients at server CPU 63.7 % of its 56.1 with no wait (target 60 ± 5), after 2 probes"}

// feed publishes a synthetic experiment: a calibration of early frames
// between the seconds (its phase, no figures, a note on the first and on
// the last), then two runs of four steps, a frame every interval, a step
// (and the claims decidable so far) every fourth frame, then the end,
// between the seconds, with the summary of the steps. It stops early when
// ctx ends. It publishes the calibration's frames at once, then waits for
// begin to close: those are the history a late joiner gets first.
func feed(ctx context.Context, h *live.Hub, interval time.Duration, early int, begin <-chan struct{}) error {
	runs := []string{"OnceGetView", "EachGetView"}
	clients := []int{1, 5, 10, 20}
	for i := range early {
		f := live.Frame{T: float64(i) / 10, Between: true, Progress: live.Progress{Experiment: "pool-size (synthetic)",
			Run: "calibration: OnceGetView", Phase: "calibrating", Step: i + 1, Steps: early, Clients: 5, Elapsed: float64(i) / 10, Left: 40}}
		if i == 0 {
			f.Notes = notes[:1]
		}
		if i == early-1 {
			f.Notes = append(f.Notes, notes[1])
		}
		if err := h.Publish(f); err != nil {
			return err
		}
	}
	select {
	case <-ctx.Done():
		return nil
	case <-begin:
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	var claims []live.Claim
	var sum live.Summary
	sec := 0
	for ri, run := range runs {
		for si, c := range clients {
			for k := range 4 {
				sec++
				// Throughput levels off as clients pass the pool of 5; the
				// waits for a connection grow with the clients beyond it.
				x := float64(c)
				thr := 900 * math.Min(x, 5) / (1 + 0.3*float64(ri)) * (1 + 0.02*math.Sin(float64(sec)))
				waitConn := math.Max(0, x-5) * (0.6 + 0.1*float64(k))
				slow := 1 + 0.6*float64(ri) // the second run answers slower
				f := live.Frame{
					T: float64(sec),
					Progress: live.Progress{Experiment: "pool-size (synthetic)", Run: run, Step: si + 1, Steps: len(clients),
						Clients: c, Elapsed: float64(sec), Left: float64(len(runs)*len(clients)*4 - sec)},
					Client: live.Client{Throughput: thr, P50: (1 + x*0.3) * slow, P90: (2 + x*0.6) * slow, P99: (4 + x*1.5) * slow},
					Server: []live.Series{
						{Name: "server CPU", Unit: "% of a core", Panel: "CPU", Value: math.Min(95, 18*x)},
						{Name: "machine CPU", Unit: "% of a core", Panel: "CPU", Value: math.Min(190, 30*x)},
						{Name: "server's cores busy", Unit: "%", Panel: "CPU", Absent: true}, // as off Linux
						{Name: "pool in use", Unit: "connections", Panel: "DB pool", Value: math.Min(x, 5)},
						{Name: "pool waiting", Unit: "connections", Panel: "DB pool", Value: waitConn},
						{Name: "worker wait", Unit: "ms/request", Panel: "Waits per request", Value: 0.1 * x},
						{Name: "pool wait", Unit: "ms/request", Panel: "Waits per request", Value: 0.4 * waitConn},
					},
					Doing: []live.Share{
						{Name: "waiting for a worker", Value: 0.2 * x},
						{Name: "waiting for a connection", Value: waitConn},
						{Name: "in SQL", Value: math.Min(x, 5) * 0.8},
						{Name: "elsewhere", Value: 0.3},
					},
				}
				errs := int64(c / 10)
				if errs > 0 {
					f.Client.Errors = []live.Count{{Kind: "timeout", Count: errs}}
				}
				if k == 3 {
					f.Step = &live.Step{Run: run, Clients: c, Throughput: thr, P50: f.Client.P50, P99: f.Client.P99, Mean: (1.5 + x*0.4) * slow,
						Requests: int64(4*thr) + 4*errs, Errors: 4 * errs}
					sum.Steps++
					sum.Requests += f.Step.Requests
					sum.Errors += f.Step.Errors
					if sum.Peak == nil || thr > sum.Peak.Throughput {
						sum.Peak = f.Step
					}
					if si == 1 {
						out := live.Reproduced
						if ri == 1 {
							out = live.DoesNotDiscriminate // its control held too
						}
						claims = append(claims, live.Claim{ID: run + "-scale", Text: run + ": throughput grows from 1 to 5 clients", Outcome: out})
					}
					if si == 3 {
						out := live.Reproduced
						if ri == 1 {
							out = live.NotReproduced
						}
						claims = append(claims, live.Claim{ID: run + "-plateau", Text: run + ": throughput levels off past the pool of 5", Outcome: out})
					}
					f.Claims = append([]live.Claim(nil), claims...)
				}
				if err := h.Publish(f); err != nil {
					return err
				}
				select {
				case <-ctx.Done():
					return nil
				case <-tick.C:
				}
			}
		}
	}
	sec++
	sum.Duration = float64(sec)
	return h.Publish(live.Frame{T: float64(sec), Done: true, Between: true, Claims: claims, Summary: &sum,
		Progress: live.Progress{Experiment: "pool-size (synthetic)", Run: runs[len(runs)-1], Step: len(clients), Steps: len(clients),
			Clients: clients[len(clients)-1], Elapsed: float64(sec)}})
}

// headline is what the page's big tiles say.
type headline struct{ Scope, ThrLabel, Thr, Where, P99Label, P99, Err, Req, Dur string }

// readHeadline reads the big tiles.
func readHeadline(t *testing.T, ctx context.Context) headline {
	t.Helper()
	h, err := chromedp.Run(ctx, chromedp.Evaluate[headline](`(function(){
		var x = function (id) { return document.getElementById(id).textContent; };
		return {Scope: x("scope"), ThrLabel: x("thr-label"), Thr: x("head-thr"), Where: x("thr-where"), P99Label: x("p99-label"),
			P99: x("head-p99"), Err: x("head-err"), Req: x("head-req"), Dur: x("head-dur")};
	})()`))
	if err != nil {
		t.Fatalf("read the headline: %v", err)
	}
	return h
}

// readNotes returns the items of the notes panel, nil when it is hidden.
func readNotes(t *testing.T, ctx context.Context) []string {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(function(){
		var s = document.getElementById("notes");
		if (s.hidden || s.offsetHeight === 0) return null;
		return Array.prototype.map.call(s.querySelectorAll("li"), function (li) { return li.textContent; });
	})()`))
	if err != nil {
		t.Fatalf("read the notes: %v", err)
	}
	return n
}

// readLegends returns the values the throughput and response-time charts'
// legends show, by series label.
func readLegends(t *testing.T, ctx context.Context) map[string]string {
	t.Helper()
	l, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](`(function(){
		var out = {}, charts = document.querySelectorAll("#panels section");
		[0, 1].forEach(function (i) {
			charts[i].querySelectorAll(".u-legend .u-series").forEach(function (row) {
				var label = row.querySelector(".u-label"), value = row.querySelector(".u-value");
				if (label && value) out[label.textContent] = value.textContent;
			});
		});
		return out;
	})()`))
	if err != nil {
		t.Fatalf("read the legends: %v", err)
	}
	return l
}

// wantSummary is the headline of the finished experiment whose last frame is end.
func wantSummary(end live.Frame) headline {
	s := end.Summary
	return headline{Scope: fmt.Sprintf("whole experiment, %d steps", s.Steps), ThrLabel: "peak throughput, req/s",
		Thr: thousands(int64(math.Round(s.Peak.Throughput))), Where: s.Peak.Run + " at " + strconv.Itoa(s.Peak.Clients) + " clients",
		P99Label: "p99 at the peak, ms", P99: jsFmt(s.Peak.P99), Err: thousands(s.Errors),
		Req: thousands(s.Requests), Dur: fmt.Sprintf("0:%02d", int(s.Duration))}
}

// jsFmt formats v as the page's fmt does for the figures of a test (0 < v < 1000).
func jsFmt(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// thousands writes n with commas, as the page does (toLocaleString("en-US")).
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestDashboardInBrowser serves the hub with a synthetic feed, opens the
// page in headless Chromium with every request outside the hub's address
// failed and counted, and checks that the page says it is calibrating and
// lists the notes while the calibration's frames are all it has, that it
// then says it is connected, that
// the throughput and latency series gain points as frames arrive, that the
// "doing now" area has non-zero waits, and that steps and claims arrive.
// The screenshot is kept as a test artifact (go test -artifacts) and, with
// -update-screenshots, written to docs/images/dashboard-synthetic.png.
func TestDashboardInBrowser(t *testing.T) {
	// Its own hub, server and browser; it waits on the frames.
	t.Parallel()
	ctx := browsertest.New(t, 1920, 1080) // a projector; first: skips before serving anything

	h := live.New()
	sctx, stop := context.WithCancel(context.Background())
	srv, err := live.Serve(sctx, "127.0.0.1:0", h)
	if err != nil {
		t.Fatal(err)
	}
	var feedErr error
	var wg sync.WaitGroup
	begin := make(chan struct{})
	wg.Go(func() { feedErr = feed(sctx, h, 250*time.Millisecond, 3, begin) })
	defer func() {
		stop()
		wg.Wait()
		if err := srv.Wait(); err != nil {
			t.Error(err)
		}
		if feedErr != nil {
			t.Errorf("feed: %v", feedErr)
		}
	}()

	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()

	// Every request the page makes pauses here: the hub's own go on, any
	// other (a CDN, a font, an analytics beacon) fails and is counted.
	// The report's file is allowed later.
	blocked := browsertest.BlockOtherOrigins(t, ctx, srv.URL)

	// waitStatus polls the status element (the page's stream keeps the
	// document busy, so polling is simpler than waiting on DOM events).
	waitStatus := func(want string) {
		t.Helper()
		var got string
		for range 300 {
			var err error
			got, err = chromedp.Run(ctx, chromedp.Evaluate[string](`(document.getElementById("status") || {}).textContent || ""`))
			if err != nil {
				t.Fatalf("read the status: %v", err)
			}
			if got == want {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("status %q after 30 s; want %q", got, want)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL)); err != nil {
		t.Fatalf("open the dashboard: %v", err)
	}
	waitStatus("calibrating…")
	if got := readNotes(t, ctx); !slices.Equal(got, notes) {
		t.Errorf("notes panel while calibrating: %q; want %q", got, notes)
	}
	if hl := readHeadline(t, ctx); hl.Thr != "–" || hl.P99 != "–" {
		t.Errorf("headline while calibrating: %+v; want no figures before the first second of load", hl)
	}
	if p, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.dashboard.points().t`)); err != nil || p != 0 {
		t.Errorf("while calibrating the time charts have %d points (%v); want none: the calibration's frames are between the seconds", p, err)
	}
	if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err != nil {
		t.Error(err)
	} else if err := os.WriteFile(filepath.Join(t.ArtifactDir(), "dashboard-calibrating.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	close(begin)
	type points struct{ T, Throughput, Latency int }
	read := func() points {
		t.Helper()
		p, err := chromedp.Run(ctx, chromedp.Evaluate[points](`(function(){var p = window.dashboard.points(); return {T: p.t, Throughput: p.throughput, Latency: p.latency};})()`))
		if err != nil {
			t.Fatalf("read window.dashboard.points(): %v", err)
		}
		return p
	}
	first := read()
	// Wait for at least three more frames to be drawn.
	var later points
	for range 100 {
		if later = read(); later.T >= first.T+3 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if later.Throughput < first.Throughput+3 || later.Latency < first.Latency+3 {
		t.Errorf("points went from %+v to %+v; want the throughput and latency series to gain points as frames arrive", first, later)
	}
	status, err := chromedp.Run(ctx, chromedp.Text(`#status`))
	if err != nil || status != "connected" && status != "finished" {
		t.Errorf("status %q (%v); want connected", status, err)
	}
	if hl := readHeadline(t, ctx); status == "connected" && (hl.Scope != "last second" || hl.ThrLabel != "throughput, req/s" || hl.Thr == "0" || hl.Thr == "–") {
		t.Errorf("headline while live: %+v; want the last second's throughput, labelled so", hl)
	}

	// Wait for the end of the feed (3 + 33 frames), then read the rest.
	waitStatus("finished")
	frames, err := h.Frames()
	if err != nil {
		t.Fatal(err)
	}
	want := wantSummary(frames[len(frames)-1])
	if got := readHeadline(t, ctx); got != want {
		t.Errorf("headline once finished:\n got %+v\nwant %+v (the whole experiment's figures, not the empty last second)", got, want)
	}
	doing, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]float64](`window.dashboard.doing()`))
	if err != nil {
		t.Fatal(err)
	}
	if doing["waiting for a connection"] <= 0 || doing["in SQL"] <= 0 || len(doing) != 4 {
		t.Errorf("doing now = %v; want four shares with non-zero waits for a connection and time in SQL", doing)
	}
	steps, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]int](`window.dashboard.steps()`))
	if err != nil {
		t.Fatal(err)
	}
	if steps["OnceGetView"] != 4 || steps["EachGetView"] != 4 {
		t.Errorf("step points per run = %v; want 4 for each of OnceGetView and EachGetView", steps)
	}
	panels, err := chromedp.Run(ctx, chromedp.Evaluate[map[string][]string](`window.dashboard.panels()`))
	if err != nil {
		t.Fatal(err)
	}
	if len(panels) != 3 || len(panels["DB pool"]) != 2 {
		t.Errorf("server panels = %v; want CPU, DB pool and Waits per request, two series each", panels)
	}
	// An absent series says so in its legend and draws no point.
	absent, err := chromedp.Run(ctx, chromedp.Evaluate[map[string][]string](`window.dashboard.absent()`))
	if err != nil {
		t.Fatal(err)
	}
	legend, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("panels").innerText`))
	if err != nil || len(absent["CPU"]) != 1 || !strings.Contains(legend, "not available on this OS") {
		t.Errorf("absent series %v, legend has \"not available on this OS\": %v (%v); want the server's cores named on the CPU panel",
			absent, strings.Contains(legend, "not available on this OS"), err)
	}
	claims, err := chromedp.Run(ctx, chromedp.Text(`ul.claims`))
	if err != nil || !strings.Contains(claims, "not reproduced") || !strings.Contains(claims, "does not discriminate") || !strings.Contains(claims, "levels off") {
		t.Errorf("claims list %q (%v); want the four claims with their outcomes", claims, err)
	}
	count, err := chromedp.Run(ctx, chromedp.Text(`p.claims-count`))
	if want := "2 reproduced, 1 does not discriminate, 1 not reproduced"; err != nil || count != want {
		t.Errorf("claims count %q (%v); want %q", count, err, want)
	}

	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100: PNG
	if err != nil {
		t.Fatal(err)
	}
	if len(png) < 10000 {
		t.Errorf("screenshot has %d bytes", len(png))
	}
	shot := filepath.Join(t.ArtifactDir(), "dashboard-synthetic.png")
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", shot, len(png))
	if *updateScreenshots {
		doc := filepath.Join("..", "..", "docs", "images", "dashboard-synthetic.png")
		if err := os.MkdirAll(filepath.Dir(doc), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(doc, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("updated %s", doc)
	}

	// The report: the same page with the hub's frames inlined, opened
	// from a file with the server stopped.
	stop()
	report := filepath.Join(t.TempDir(), "report.html")
	out, err := os.Create(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := live.WriteReport(out, frames, "pool-size (synthetic) report"); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	blocked.Allow("file://" + report)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+report)); err != nil {
		t.Fatalf("open the report: %v", err)
	}
	waitStatus("report")
	got := read()
	rsteps, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]int](`window.dashboard.steps()`))
	if err != nil {
		t.Fatal(err)
	}
	secs := 0
	for _, f := range frames {
		if !f.Between {
			secs++
		}
	}
	if got.T != secs || got.Throughput != secs || rsteps["OnceGetView"] != 4 || rsteps["EachGetView"] != 4 {
		t.Errorf("report draws %+v and steps %v; want %d points (the %d frames but those between the seconds) and 4 steps per run",
			got, rsteps, secs, len(frames))
	}
	if got := readNotes(t, ctx); !slices.Equal(got, notes) {
		t.Errorf("the report's notes panel: %q; want %q", got, notes)
	}
	// The legends show the last second of load, not the end's empty frame.
	if l := readLegends(t, ctx); l["throughput"] == "" || l["throughput"] == "0" || l["throughput"] == "–" || l["p99"] == "–" || l["p99"] == "" {
		t.Errorf("the report's legends: %v; want the last second's throughput and p99", l)
	}
	if got := readHeadline(t, ctx); got != want {
		t.Errorf("report's headline:\n got %+v\nwant %+v (the whole experiment's figures, not the empty last second)", got, want)
	}
	png, err = chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), "report-synthetic.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}

	if foreign := blocked.Foreign(); len(foreign) > 0 {
		t.Errorf("the page tried %d requests outside %v: %v", len(foreign), blocked.Allowed(), foreign)
	}
}
