package report

import (
	"slices"
	"strings"
	"testing"

	"bbslab/loadtest"
	"bbslab/loadtest/outcome"
	"bbslab/loadtest/watch"
)

// TestTableAbsentReadings checks that a server reading the target did not
// report and a generator CPU its OS did not give are "–" in the run's
// table, with a note naming them, and never 0.
func TestTableAbsentReadings(t *testing.T) {
	readings := []watch.Stat{
		{Name: "server CPU", Unit: "% of a core"},
		{Name: "server_core_busy", Unit: "%"},
	}
	p := measuredPoint(10, []float64{1000}, nil, []float64{55}) // reports server CPU only
	r := &outcome.Run{Name: "on macOS", Points: []*outcome.Point{p}}
	head, rows := pointRows(r, &outcome.Result{Stats: readings})
	cell := func(col string) string {
		for i, h := range head {
			if strings.HasPrefix(h, col) {
				return rows[0][i]
			}
		}
		t.Fatalf("no column %q in %v", col, head)
		return ""
	}
	if got := cell("server CPU"); got != "55.00" {
		t.Errorf("server CPU cell = %q; want 55.00", got)
	}
	for _, col := range []string{"server_core_busy", "generator CPU %", "others on generator core %"} {
		if got := cell(col); got != "–" {
			t.Errorf("%s cell = %q; want – (absent, not 0)", col, got)
		}
	}
	md := pointTable(r, &outcome.Result{Stats: readings}, "|")
	if want := "–: not available on this OS (not reported where it ran): generator CPU %, others on generator core %, server_core_busy."; !strings.Contains(md, want) {
		t.Errorf("table:\n%s\nwant the note %q", md, want)
	}
	// Measured where everything was reported: no note.
	cpu := 12.0
	p.Result.Cost.CPUPercent = &cpu
	p.Result.Cost.Cores = &loadtest.CoresUse{CPUs: []int{1}, Busy: 20}
	full := &outcome.Result{Stats: []watch.Stat{readings[0]}}
	if note := absentNote(r, full); note != "" {
		t.Errorf("absentNote with every figure = %q; want none", note)
	}
	if _, rows := pointRows(r, full); rows[0][8] != "12" {
		t.Errorf("generator CPU cell = %q; want 12", rows[0][8])
	}
}

// TestTableCoreColumns checks the columns of the time others took from
// the cores: the generator's from each repeat's cost, the server's from
// the readings the result names as its interference and steal (median and
// range over the repeats), shown once even when the experiment's
// readings list them too, and left out where no point has them.
func TestTableCoreColumns(t *testing.T) {
	p := &outcome.Point{Clients: 10}
	for i, v := range []struct{ gen, srv, steal float64 }{{1, 30, 5}, {3, 10, 4}, {2, 20, 6}} {
		r := &loadtest.Result{Total: loadtest.Stats{Clients: 10, Throughput: 100 * float64(i+1)}}
		r.Cost.Cores = &loadtest.CoresUse{CPUs: []int{1}, Busy: 50, Interference: v.gen}
		r.Cost.CPUPercent = &r.Cost.Cores.Busy
		server := &watch.ServerStats{Values: []watch.ServerValue{{Name: "server_interference", Value: v.srv}, {Name: "server_steal", Value: v.steal}, {Name: "server CPU", Value: 40}}}
		p.Repeats = append(p.Repeats, outcome.NewRepeat(i+1, r, server))
		p.Refresh()
	}
	r := &outcome.Run{Name: "graph 1", Points: []*outcome.Point{p}}
	readings := []watch.Stat{{Name: "server CPU", Unit: "% of a core"}, {Name: "server_interference", Unit: "% of a core"}}
	res := &outcome.Result{Stats: readings, Interference: "server_interference", Steal: "server_steal"}
	head, rows := pointRows(r, res)
	want := map[string]string{
		"others on generator core %": "2.0 (1.0-3.0)",
		"others on server core %":    "20.0 (10.0-30.0)",
		"server steal %":             "5.0 (4.0-6.0)",
	}
	for col, cell := range want {
		i := slices.Index(head, col)
		if i < 0 {
			t.Errorf("no column %q in %q", col, head)
			continue
		}
		if rows[0][i] != cell {
			t.Errorf("%s = %q; want %q", col, rows[0][i], cell)
		}
	}
	if slices.ContainsFunc(head, func(h string) bool { return strings.HasPrefix(h, "server_interference") }) {
		t.Errorf("head %q: want the interference once, as others on server core %%", head)
	}
	if note := absentNote(r, res); note != "" {
		t.Errorf("absentNote = %q; want none", note)
	}
	// A target without them (a Go service), or readings no point has:
	// no server columns.
	for _, res := range []*outcome.Result{{Stats: readings}, {Stats: readings, Interference: "other", Steal: "other steal"}} {
		head, _ := pointRows(r, res)
		if slices.Contains(head, "others on server core %") || slices.Contains(head, "server steal %") {
			t.Errorf("interference %q, steal %q: head %q; want no server core columns", res.Interference, res.Steal, head)
		}
	}
}
