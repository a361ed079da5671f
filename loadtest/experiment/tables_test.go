package experiment

import (
	"strings"
	"testing"

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
	r := &runResult{Name: "on macOS", Points: []*point{p}}
	head, rows := pointRows(r, readings)
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
	for _, col := range []string{"server_core_busy", "generator CPU %"} {
		if got := cell(col); got != "–" {
			t.Errorf("%s cell = %q; want – (absent, not 0)", col, got)
		}
	}
	md := pointTable(r, &Result{Stats: readings}, "|")
	if want := "–: not available on this OS (not reported where it ran): generator CPU %, server_core_busy."; !strings.Contains(md, want) {
		t.Errorf("table:\n%s\nwant the note %q", md, want)
	}
	// Measured where everything was reported: no note.
	cpu := 12.0
	p.Result.Cost.CPUPercent = &cpu
	full := []watch.Stat{readings[0]}
	if note := absentNote(r, full); note != "" {
		t.Errorf("absentNote with every figure = %q; want none", note)
	}
	if _, rows := pointRows(r, full); rows[0][8] != "12" {
		t.Errorf("generator CPU cell = %q; want 12", rows[0][8])
	}
}
