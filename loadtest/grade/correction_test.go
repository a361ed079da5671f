package grade

import (
	"bbslab/truth"
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"bbslab/internal/cli"
)

// TestWrkCorrectedStall grades wrk's --latency text of a run through a
// 1 s stall (testdata/wrk-stall.txt, wrk 4.1.0 against the board with
// its truth, testdata/truth-wrk-stall.json: docs/grading.md): the report
// labels wrk's latency row as corrected, names wrk's stats_correct,
// computes wrk's interval and shows by Little's law that its mean is not
// of its requests; the two latency checks say the figures include
// synthetic samples, and the stall check that its p99 is the
// correction's (10 connections can hold at most 10 of 70,876 requests in
// one stall).
func TestWrkCorrectedStall(t *testing.T) {
	var out bytes.Buffer
	err := Run(context.Background(), Options{TruthFile: "testdata/truth-wrk-stall.json"}, []string{"testdata/wrk-stall.txt"}, &out)
	if code := cli.ExitCode(err); code != 0 {
		t.Fatalf("Run = %v (exit %d); want 0\n%s", err, code, out.String())
	}
	s := out.String()
	for _, want := range []string{
		"  tool, corrected          1.340    12.780",
		"corrected: the tool's latency figures are of corrected samples (wrk 4.0 and later corrects for coordinated omission before printing: src/stats.c stats_correct), not of its 70876 requests alone",
		"at least 2 x 1.703 ms (its mean interval per connection: 12.07 s / (70876 requests / 10 connections))",
		"Little's law: 10 connections at 5872.1/s bound the mean latency of its requests at 10 / 5872.1 s = 1.703 ms; the tool printed a mean of 32.430 ms: that mean is not of its requests",
		"PASS        no percentile below the server's: compared p50, p90, p99, max; the tool's figures include the synthetic samples",
		"PASS        stalls visible: its tail shows the stall: p99 831.5 ms >= 500 ms; but the tool's percentiles include the synthetic samples",
		"at most 10 of its 70876 requests (0.014 %) can wait in 1 stall", "so its p99 is the correction's, not its requests'",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the grade lacks %q:\n%s", want, s)
		}
	}
}

// TestCorrectionLabels: wrk's figures are labelled corrected, hey's (of
// its requests) are not; wrk's interval is wrk's own integer arithmetic;
// a mean within Little's bound is not said to be of synthetic samples.
func TestCorrectionLabels(t *testing.T) {
	for _, tt := range []struct {
		file      string
		corrected bool
	}{{"testdata/wrk.txt", true}, {"testdata/hey.csv", false}} {
		rs, err := readFile(tt.file, "")
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		writeGrading(&out, gradeReport(rs[0], stallTruth()))
		s := out.String()
		if got := strings.Contains(s, "tool, corrected") && strings.Contains(s, "corrected: ") && strings.Contains(s, "synthetic samples"); got != tt.corrected {
			t.Errorf("%s: labelled corrected %v; want %v:\n%s", tt.file, got, tt.corrected, s)
		}
		if !tt.corrected && (!strings.Contains(s, "\n  tool   ") || strings.Contains(s, "synthetic")) {
			t.Errorf("%s: the tool's row is not plain, or synthetic samples are mentioned:\n%s", tt.file, s)
		}
		if tt.corrected {
			// 10.01 s / (67890 requests / 10 connections = 6789) = 1474 µs;
			// mean 1.52 ms, within 5 % of 10 / 6782.2 s = 1.474 ms.
			if c := rs[0].Correction; c.Interval != 1474*time.Microsecond || c.Connections != 10 || c.Mean != 1.52 {
				t.Errorf("%s: correction %+v; want interval 1.474 ms, 10 connections, mean 1.52 ms", tt.file, *c)
			}
			if strings.Contains(s, "not of its requests") {
				t.Errorf("%s: a mean within Little's bound is said not to be of its requests:\n%s", tt.file, s)
			}
		}
	}
}

// TestCorrectionBound: a corrected p99 at the stall is called the
// correction's only when the tool's connections cannot account for it
// (here 1000 connections, 10,000 requests: 10 % could wait in a stall).
func TestCorrectionBound(t *testing.T) {
	for _, tt := range []struct {
		conns int
		says  bool
	}{{10, true}, {1000, false}} {
		r := &Report{Name: "wrk", Format: "wrk", Relative: true, Span: 10 * time.Second, Sent: 10000, Responses: 10000, Resolution: 0.01,
			Lat:        Percentiles{P50: 1, P90: 2, P95: nan, P99: 800, P999: nan, Max: 1000},
			Correction: &Correction{Source: wrkSource, Connections: tt.conns, Interval: time.Millisecond, Mean: nan}}
		c := verdicts(gradeReport(r, stallTruth()))["stalls visible"]
		if c.Verdict != Pass || !strings.Contains(c.Text, "synthetic samples") || strings.Contains(c.Text, "is the correction's") != tt.says {
			t.Errorf("%d connections: %s (%s); want PASS naming the synthetic samples, and calling the p99 the correction's: %v", tt.conns, c.Verdict, c.Text, tt.says)
		}
	}
}

// TestWrkAtWindow: wrk placed with -window is still graded from its
// percentiles (it has no per-request data), not passed with nothing said.
func TestWrkAtWindow(t *testing.T) {
	rs, err := readFile("testdata/wrk-stall.txt", "")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := decodeFile("testdata/truth-wrk-stall.json", "truth", DecodeTruth)
	if err != nil {
		t.Fatal(err)
	}
	win := &truth.Span{Start: tr.Start, End: tr.End}
	align(rs[0], tr, win)
	c := verdicts(gradeReport(rs[0], tr))["stalls visible"]
	if c.Verdict != Pass || !strings.Contains(c.Text, "its tail shows the stall: p99 831.5 ms") {
		t.Errorf("wrk at -window: %s (%s); want PASS from its tail", c.Verdict, c.Text)
	}
}
