package grade

import (
	"bbslab/truth"
	"strings"
	"testing"
	"time"
)

var base = time.Date(2026, 12, 2, 7, 20, 0, 0, time.UTC)

// stallTruth is 10 s at 500 requests/s with a 1 s stall from 5 s.
func stallTruth() *Truth {
	t := &Truth{Start: base, End: base.Add(10 * time.Second), Report: &truth.Report{Version: 1, Requests: 5000,
		ServerMS:  truth.Summary{P50: 0.9, P90: 0.95, P99: 900, P999: 990.2, Max: 1001.3},
		ServiceMS: truth.Summary{P50: 0.8},
		Stalls:    []truth.Span{{Start: base.Add(5 * time.Second), End: base.Add(6 * time.Second)}}}}
	for i := 0; i < 10; i++ {
		t.Seconds = append(t.Seconds, truth.Second{T: base.Add(time.Duration(i) * time.Second), Requests: 500})
	}
	return t
}

// constantRate is a tool sending every 2 ms for 10 s that saw the stall:
// a request sent at a in the stall ends 1 ms after the stall.
func constantRate() *Report {
	r := &Report{Name: "constant", Format: "test", Start: base, Span: 10 * time.Second, Resolution: 0.001}
	stallStart, stallEnd := 5*time.Second, 6*time.Second
	for at := time.Duration(0); at < 10*time.Second; at += 2 * time.Millisecond {
		lat := time.Millisecond
		if at >= stallStart && at < stallEnd {
			lat += stallEnd - at
		}
		r.Requests = append(r.Requests, Request{At: at, Latency: lat, Status: 200})
	}
	r.fromRequests()
	return r
}

// closedLoop is a tool whose requests stop during the stall.
func closedLoop() *Report {
	r := &Report{Name: "closed", Format: "test", Start: base, Span: 10 * time.Second, Resolution: 0.001}
	for at := time.Duration(0); at < 10*time.Second; at += 2 * time.Millisecond {
		if at >= 5*time.Second && at < 6*time.Second {
			continue
		}
		r.Requests = append(r.Requests, Request{At: at, Latency: time.Millisecond, Status: 200})
	}
	r.fromRequests()
	return r
}

func verdicts(g *Grading) map[string]Check {
	m := map[string]Check{}
	for _, c := range g.Checks {
		m[c.Name] = c
	}
	return m
}

func TestConstantRateSeesTheStall(t *testing.T) {
	g := gradeReport(constantRate(), stallTruth())
	for _, c := range g.Checks {
		if c.Verdict != Pass {
			t.Errorf("constant rate: %s = %s (%s); want PASS", c.Name, c.Verdict, c.Text)
		}
	}
	if g.SentInStalls != 500 || g.Due != 500 {
		t.Errorf("constant rate: sent %d in the stalls, %v due; want 500, 500", g.SentInStalls, g.Due)
	}
	if g.Expected.P50 < 490 || g.Expected.P50 > 510 || g.Expected.Max < 1000 {
		t.Errorf("expected stall latency p50 %.1f, max %.1f; want about 500.8 and 1000.8", g.Expected.P50, g.Expected.Max)
	}
}

func TestClosedLoopIsFlagged(t *testing.T) {
	g := gradeReport(closedLoop(), stallTruth())
	c := verdicts(g)["stalls visible"]
	if c.Verdict != Fail || !strings.Contains(c.Text, "coordinated omission") || !strings.Contains(c.Text, "100.0 % never sent") {
		t.Errorf("closed loop: stalls visible = %s (%s); want FAIL, coordinated omission, 100.0 %% never sent", c.Verdict, c.Text)
	}
	if g.Rate != 500 {
		t.Errorf("closed loop: rate outside the stall %.1f/s; want 500", g.Rate)
	}
	// Its p99 (1 ms) is below the server's (900 ms): check 2 fails too.
	if p := verdicts(g)["no percentile below the server's"]; p.Verdict != Fail {
		t.Errorf("closed loop: percentiles = %s (%s); want FAIL", p.Verdict, p.Text)
	}
}

// A closed loop that sent a quarter of the stall's requests: 75 % never sent.
func TestOmissionShare(t *testing.T) {
	r := closedLoop()
	for at := 5 * time.Second; at < 5250*time.Millisecond; at += 2 * time.Millisecond {
		r.Requests = append(r.Requests, Request{At: at, Latency: time.Millisecond, Status: 200})
	}
	r.fromRequests()
	c := verdicts(gradeReport(r, stallTruth()))["stalls visible"]
	if c.Verdict != Fail || !strings.Contains(c.Text, "sent 125 of the 500") || !strings.Contains(c.Text, "75.0 % never sent") {
		t.Errorf("stalls visible = %s (%s); want FAIL, sent 125 of the 500, 75.0 %% never sent", c.Verdict, c.Text)
	}
}

func TestCountsDisagree(t *testing.T) {
	r := constantRate()
	r.Requests = r.Requests[:len(r.Requests)-30] // 4970 of 5000: 0.6 % short
	r.Status, r.Sent, r.Responses = nil, 0, 0
	r.fromRequests()
	if c := verdicts(gradeReport(r, stallTruth()))["counts agree"]; c.Verdict != Fail {
		t.Errorf("4970 vs 5000: counts agree = %s (%s); want FAIL", c.Verdict, c.Text)
	}
	r = constantRate()
	r.Requests = r.Requests[:len(r.Requests)-20] // 0.4 %: within
	r.Status, r.Sent, r.Responses = nil, 0, 0
	r.fromRequests()
	if c := verdicts(gradeReport(r, stallTruth()))["counts agree"]; c.Verdict != Pass {
		t.Errorf("4980 vs 5000: counts agree = %s (%s); want PASS", c.Verdict, c.Text)
	}
}

func TestP50BelowServer(t *testing.T) {
	tr := stallTruth()
	tr.ServerMS.P50 = 5 // the tool's p50 is 1 ms
	c := verdicts(gradeReport(constantRate(), tr))["no percentile below the server's"]
	if c.Verdict != Fail || !strings.Contains(c.Text, "p50") {
		t.Errorf("client p50 1 ms, server 5 ms: %s (%s); want FAIL naming p50", c.Verdict, c.Text)
	}
}

// TestAlign: offsets only are matched to the latest span of the truth's
// seconds whose counts match the tool's own, or placed at -window.
func TestAlign(t *testing.T) {
	tr := &Truth{Report: &truth.Report{Version: 1}}
	for i, n := range []int64{0, 0, 100, 100, 100, 0, 100, 100, 100, 0, 0} {
		tr.Seconds = append(tr.Seconds, truth.Second{T: base.Add(time.Duration(i) * time.Second), Requests: n})
	}
	r := &Report{Relative: true}
	for at := time.Duration(0); at < 3*time.Second; at += 10 * time.Millisecond {
		r.Requests = append(r.Requests, Request{At: at, Latency: time.Millisecond, Status: 200})
	}
	r.fromRequests()
	align(r, tr, nil)
	if want := base.Add(6 * time.Second); r.Relative || !r.Start.Equal(want) {
		t.Errorf("align: start %v (relative %v); want %v, the most recent matching span", r.Start, r.Relative, want)
	}
	if n, _ := tr.served(r.Start, r.End); n != 300 {
		t.Errorf("served in the matched span: %d; want 300", n)
	}
	r.Relative = true
	win := &truth.Span{Start: base.Add(2 * time.Second), End: base.Add(5 * time.Second)}
	align(r, tr, win)
	if !r.Start.Equal(win.Start) {
		t.Errorf("align with -window: start %v; want %v", r.Start, win.Start)
	}
}

// TestWrkStall: wrk's summary (max 45 ms, 3 socket errors) over the
// truth's 1 s stall cannot tell (the errors may be the stall's requests);
// with every request answered its max, short of the stall, fails it; a
// p99 that reaches the stall passes it.
func TestWrkStall(t *testing.T) {
	rs, err := readFile("testdata/wrk.txt", "")
	if err != nil {
		t.Fatal(err)
	}
	if c := verdicts(gradeReport(rs[0], stallTruth()))["stalls visible"]; c.Verdict != CannotTell || !strings.Contains(c.Text, "3 of its requests got no response") {
		t.Errorf("wrk, max 45 ms, 3 socket errors, 1 s stall: %s (%s); want CANNOT TELL naming the 3", c.Verdict, c.Text)
	}
	rs[0].Sent = rs[0].Responses
	if c := verdicts(gradeReport(rs[0], stallTruth()))["stalls visible"]; c.Verdict != Fail || !strings.Contains(c.Text, "its max 45.2 ms is below 500 ms") {
		t.Errorf("wrk, max 45 ms, every request answered, 1 s stall: %s (%s); want FAIL naming its max", c.Verdict, c.Text)
	}
	rs[0].Lat.P99 = 700
	if c := verdicts(gradeReport(rs[0], stallTruth()))["stalls visible"]; c.Verdict != Pass {
		t.Errorf("wrk, p99 700 ms, 1 s stall: %s (%s); want PASS", c.Verdict, c.Text)
	}
}
