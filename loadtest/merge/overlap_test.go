package merge

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"bbslab/loadtest"
)

// windowed gives a fake result (fakeResult: 10 s of measurements) the
// measured window from start for 10 s.
func windowed(r *loadtest.Result, start time.Time) *loadtest.Result {
	r.Start, r.MeasureStart, r.End = start, start, start.Add(10*time.Second)
	return r
}

func twoGenerators(t0 time.Time, shift time.Duration) []*loadtest.Result {
	a := windowed(fakeResult(10, map[time.Duration]int64{time.Millisecond: 1000}, 0), t0)
	b := windowed(fakeResult(10, map[time.Duration]int64{time.Millisecond: 1000}, 0), t0.Add(shift))
	a.Name, b.Name = "a", "b"
	return []*loadtest.Result{a, b}
}

func TestMergeSkewedWindowsWarn(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	m, err := Results(twoGenerators(t0, 2*time.Second), Options{Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	o := m.Overlap
	if o == nil || o.MaxStartSkewMs != 2000 || o.MaxEndSkewMs != 2000 || o.Seconds != 8 || !o.Start.Equal(t0.Add(2*time.Second)) || !o.End.Equal(t0.Add(10*time.Second)) || o.ThresholdMs != 120 {
		t.Fatalf("overlap %+v; want the common 8 s from 12:00:02, skews of 2000 ms, threshold 120 ms (1 %% of 12 s)", o)
	}
	if g := o.Generators; g[0].StartMs != -2000 || g[0].EndMs != 0 || g[1].StartMs != 0 || g[1].EndMs != 2000 {
		t.Errorf("offsets %+v; want a -2000/0 and b 0/+2000 ms", g)
	}
	w := strings.Join(m.Warnings, "\n")
	if !strings.Contains(w, "differ by up to 2000.0 ms at the start and 2000.0 ms at the end") || !strings.Contains(w, "common 8.000 s, and the merged throughput averages over the whole 12.000 s") || o.Warning == "" {
		t.Errorf("warnings %q; want one giving the 2000 ms skews and the common 8 s", w)
	}
	// 2,000 successes over the merged 12 s, not the sum of two 10 s rates.
	if m.MeasuredSeconds != 12 || !within(m.Total.Throughput, 2000.0/12, 1e-9) || !within(m.Labels[0].Throughput, 2000.0/12, 1e-9) {
		t.Errorf("merged %.3f s at %.3f/s (label %.3f/s); want 12 s at %.3f/s", m.MeasuredSeconds, m.Total.Throughput, m.Labels[0].Throughput, 2000.0/12)
	}
	var buf bytes.Buffer
	if err := WriteOverlap(&buf, o, []string{"gen1.json"}, t0); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	var rows []string
	for _, line := range strings.Split(out, "\n") {
		rows = append(rows, strings.Join(strings.Fields(line), " "))
	}
	for _, want := range []string{"common 12:00:02.000 UTC", "start skew 2000.000 ms", "\ngen1.json -2000.000 +0.000 -\n", "\nb +0.000 +2000.000 -\n"} {
		if !strings.Contains(strings.Join(rows, "\n"), want) {
			t.Errorf("WriteOverlap wrote\n%s\nwant %q in it", out, want)
		}
	}
}

func TestMergeSmallSkewIsQuiet(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	m, err := Results(twoGenerators(t0, 50*time.Millisecond), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Overlap.MaxStartSkewMs != 50 || m.Overlap.Warning != "" {
		t.Errorf("overlap %+v; want a 50 ms skew and no warning", m.Overlap)
	}
	for _, w := range m.Warnings {
		if strings.Contains(w, "window") {
			t.Errorf("warning %q for a 50 ms skew", w)
		}
	}
}

func TestMergeDisjointWindows(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	_, err := Results(twoGenerators(t0, 30*time.Second), Options{Now: t0})
	if !errors.Is(err, ErrDisjoint) || !strings.Contains(err.Error(), "result 2 measured from 12:00:30.000 UTC, 20.000 s after result 1's window ended at 12:00:10.000 UTC") {
		t.Fatalf("Results of disjoint windows = %v; want ErrDisjoint naming the 20 s gap", err)
	}
	m, err := Results(twoGenerators(t0, 30*time.Second), Options{AllowDisjoint: true, Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	if m.Overlap.Seconds != 0 || !strings.Contains(m.Overlap.Warning, "do not overlap") || m.MeasuredSeconds != 40 || !within(m.Total.Throughput, 50, 1e-9) {
		t.Errorf("disjoint merge: overlap %+v, %.3f s at %.3f/s; want no common window, a warning, 40 s at 50/s", m.Overlap, m.MeasuredSeconds, m.Total.Throughput)
	}
}

// TestOverlapDateAgainstNow checks both branches of "the date only when
// not today" with "now" passed in, so that it holds on any day: on now's
// date (judged in the windows' zone, UTC here) the times have no date; on
// another day, and with no now, they have it.
func TestOverlapDateAgainstNow(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	tokyo := time.FixedZone("JST", 9*3600)
	for _, c := range []struct {
		name   string
		now    time.Time
		prefix string // before each clock time
	}{
		{"same day, later", time.Date(2026, 12, 2, 23, 59, 59, 0, time.UTC), ""},
		{"same day in UTC, the next in Tokyo", time.Date(2026, 12, 3, 1, 0, 0, 0, tokyo), ""},
		{"the next day", time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC), "2026-12-02 "},
		{"the day before", time.Date(2026, 12, 1, 23, 59, 59, 0, time.UTC), "2026-12-02 "},
		{"a year later, same month and day", time.Date(2027, 12, 2, 12, 0, 0, 0, time.UTC), "2026-12-02 "},
		{"no now", time.Time{}, "2026-12-02 "},
	} {
		m, err := Results(twoGenerators(t0, 2*time.Second), Options{Now: c.now})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := WriteOverlap(&buf, m.Overlap, nil, c.now); err != nil {
			t.Fatal(err)
		}
		if want := "common " + c.prefix + "12:00:02.000 UTC to " + c.prefix + "12:00:10.000 UTC"; !strings.Contains(buf.String(), want) {
			t.Errorf("%s: WriteOverlap with now %v wrote\n%s\nwant %q in it", c.name, c.now, buf.String(), want)
		}
		_, err = Results(twoGenerators(t0, 30*time.Second), Options{Now: c.now})
		if want := "measured from " + c.prefix + "12:00:30.000 UTC"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: Results of disjoint windows with now %v = %v; want %q in it", c.name, c.now, err, want)
		}
	}
}

func TestMergeWithoutWindows(t *testing.T) {
	a := fakeResult(1, map[time.Duration]int64{time.Millisecond: 100}, 0)
	b := fakeResult(1, map[time.Duration]int64{time.Millisecond: 100}, 0)
	m, err := Results([]*loadtest.Result{a, b}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Overlap != nil || !strings.Contains(strings.Join(m.Warnings, "\n"), "result 1 has no measured window") || m.Total.Throughput != 20 {
		t.Errorf("merge without windows: overlap %+v, throughput %.1f, warnings %q; want none, 20/s over the 10 s, a warning", m.Overlap, m.Total.Throughput, m.Warnings)
	}
}
