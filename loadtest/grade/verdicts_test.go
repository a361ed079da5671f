package grade

import (
	"strings"
	"testing"
	"time"

	"bbslab/truth"
)

// summaryReport is a tool that kept only a summary, as wrk prints it: 5000
// requests over the truth's 10 s, every one answered, its tail ending at
// max ms (NaN: not printed). It is placed over the whole window, so the
// truth's 1 s stall at 5 s ends while it runs.
func summaryReport(max float64) *Report {
	return &Report{Name: "summary", Format: "test", Start: base, End: base.Add(10 * time.Second), Span: 10 * time.Second,
		Sent: 5000, Responses: 5000, Resolution: 0.01, Lat: Percentiles{P50: 1, P90: 2, P95: nan, P99: 5, P999: nan, Max: max}}
}

// histogramReport is a tool with a histogram and no per-request data, as
// the lab's JSON: 5000 requests over 10 s, seen of them at or above 500 ms.
func histogramReport(seen int64) *Report {
	r := summaryReport(1001)
	r.Tail = func(ms float64) int64 {
		if ms <= 500 {
			return seen
		}
		return 0
	}
	return r
}

// sparse is a tool that sent one request every 2 s: at its rate less than
// one request falls in the 1 s stall.
func sparse() *Report {
	r := &Report{Name: "sparse", Format: "test", Start: base, Span: 10 * time.Second, Resolution: 0.001}
	for at := time.Duration(0); at < 10*time.Second; at += 2 * time.Second {
		r.Requests = append(r.Requests, Request{At: at, Latency: time.Millisecond, Status: 200})
	}
	r.fromRequests()
	return r
}

// TestEveryVerdict decides each branch of each check on constructed
// inputs, beside its control: the same input with the one thing changed
// that the branch turns on, decided the other way. Every check is seen
// to fail and to pass; each CANNOT TELL and N/A gives way to a verdict
// once the missing figure is there.
func TestEveryVerdict(t *testing.T) {
	const counts, pcts, stalls = "counts agree", "no percentile below the server's", "stalls visible"
	noStall := func() *Truth { tr := stallTruth(); tr.Stalls = nil; return tr }
	noServed := func() *Truth { tr := stallTruth(); tr.Seconds, tr.Requests = nil, 0; return tr }
	zeroStall := func() *Truth {
		tr := stallTruth()
		tr.Stalls = append(tr.Stalls, truth.Span{Start: base.Add(8 * time.Second), End: base.Add(8 * time.Second)})
		return tr
	}
	edit := func(r *Report, f func(*Report)) *Report { f(r); return r }
	for _, tt := range []struct {
		name   string
		report *Report
		truth  *Truth
		check  string
		want   Verdict
		text   string
	}{
		// counts agree: within 0.5 % of the server's count.
		{"counts: equal", constantRate(), stallTruth(), counts, Pass, "tool 5000 responses, server 5000 served"},
		{"counts: 0.6 % short", edit(summaryReport(1001), func(r *Report) { r.Sent, r.Responses = 4970, 4970 }), stallTruth(), counts, Fail, "(-0.60 %, tolerance 0.5 %)"},
		{"counts: 0.4 % short", edit(summaryReport(1001), func(r *Report) { r.Sent, r.Responses = 4980, 4980 }), stallTruth(), counts, Pass, "(-0.40 %"},
		{"counts: the server served none", constantRate(), noServed(), counts, Fail, "the server served no request in the tool's span"},

		// no percentile below the server's.
		{"percentiles: at or above", constantRate(), edit2(stallTruth(), func(tr *Truth) { tr.ServerMS = truth.Summary{P50: 0.9, Max: 1000} }), pcts, Pass, "compared p50, max"},
		{"percentiles: p50 below", constantRate(), edit2(stallTruth(), func(tr *Truth) { tr.ServerMS = truth.Summary{P50: 5, Max: 1000} }), pcts, Fail, "p50 1.000 < server 5.000 ms"},
		{"percentiles: none known", edit(summaryReport(nan), func(r *Report) { r.Lat = Percentiles{nan, nan, nan, nan, nan, nan} }), stallTruth(), pcts, CannotTell, "no percentile to compare"},
		{"percentiles: none known, control", summaryReport(nan), stallTruth(), pcts, Fail, "p99 5.000 < server 900.000 ms"},

		// stalls visible: not applicable without a stall.
		{"stalls: none in the truth", closedLoop(), noStall(), stalls, NotApplicable, "no stall in the tool's span"},
		{"stalls: none in the truth, control", closedLoop(), stallTruth(), stalls, Fail, "coordinated omission"},

		// Per request: what it sent in the stalls.
		{"stalls: sent every request due", constantRate(), stallTruth(), stalls, Pass, "sent 500 of the 500 requests"},
		{"stalls: sent none of them", closedLoop(), stallTruth(), stalls, Fail, "coordinated omission: sent 0 of the 500 requests its own rate (500.0/s) puts in the stalls: 100.0 % never sent"},
		{"stalls: less than one request due", sparse(), stallTruth(), stalls, CannotTell, "less than one request was due in the stalls"},

		// A histogram: what its tail holds (from the tail).
		{"stalls: the tail holds them", histogramReport(251), stallTruth(), stalls, Pass, "251 requests at or above 500 ms of the 250 due: 0.0 % missing"},
		{"stalls: the tail lacks them", histogramReport(10), stallTruth(), stalls, Fail, "coordinated omission (from the tail): 10 requests at or above 500 ms of the 250 due: 96.0 % missing from its tail"},

		// A summary only (tailOnly).
		{"summary: p99 reaches the stall", edit(summaryReport(1001), func(r *Report) { r.Lat.P99 = 700 }), stallTruth(), stalls, Pass, "its tail shows the stall: p99 700.0 ms >= 500 ms"},
		{"summary: max reaches the stall", summaryReport(1001), stallTruth(), stalls, Pass, "its tail shows the stall: max 1001.0 ms >= 500 ms"},
		{"summary: max short of the stall", summaryReport(45), stallTruth(), stalls, Fail,
			"coordinated omission (from the tail): its max 45.0 ms is below 500 ms (half the shortest stall, 1000 ms), so none of its requests waited that long: 0 requests at or above 500 ms of the 250 due: 100.0 % missing from its tail"},
		{"summary: placed nowhere, over the whole window", edit(summaryReport(45), func(r *Report) { r.Start, r.End, r.Relative = time.Time{}, time.Time{}, true }), stallTruth(), stalls, Fail, "coordinated omission (from the tail)"},
		{"summary: placed nowhere, 4 s in 10", edit(summaryReport(45), func(r *Report) {
			r.Start, r.End, r.Relative, r.Span, r.Sent, r.Responses = time.Time{}, time.Time{}, true, 4*time.Second, 2000, 2000
		}), stallTruth(), stalls, CannotTell, "a stall may not have ended while the tool ran"},
		{"summary: the stall outlasts its span", edit(summaryReport(45), func(r *Report) {
			r.End, r.Span, r.Sent, r.Responses = base.Add(5500*time.Millisecond), 5500*time.Millisecond, 2750, 2750
		}), stallTruth(), stalls, CannotTell, "a stall may not have ended while the tool ran"},
		{"summary: requests without response", edit(summaryReport(45), func(r *Report) { r.Sent = 5003 }), stallTruth(), stalls, CannotTell, "3 of its requests got no response"},
		{"summary: max not printed", summaryReport(nan), stallTruth(), stalls, CannotTell, "its percentiles do not reach 500 ms while its max is not known"},
		{"summary: less than one request due", edit(summaryReport(45), func(r *Report) { r.Sent, r.Responses = 5, 5 }), stallTruth(), stalls, CannotTell, "less than one request was due that long"},
		{"summary: a stall of no length", summaryReport(45), zeroStall(), stalls, CannotTell, "no per-request data or times"},
	} {
		c := verdicts(gradeReport(tt.report, tt.truth))[tt.check]
		if c.Verdict != tt.want || !strings.Contains(c.Text, tt.text) {
			t.Errorf("%s: %s = %s (%s); want %s with %q", tt.name, tt.check, c.Verdict, c.Text, tt.want, tt.text)
		}
	}
}

// edit2 changes a truth in place and returns it.
func edit2(tr *Truth, f func(*Truth)) *Truth { f(tr); return tr }
