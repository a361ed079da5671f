package report

import (
	"strings"
	"testing"

	"bbslab/loadtest/outcome"
	"bbslab/loadtest/watch"
)

// TestProfilesSideBySide: runs profiled at the same client count are put
// in columns, bucket by bucket and rank by rank; one run alone is not.
func TestProfilesSideBySide(t *testing.T) {
	prof := func(kind string, conn float64, top string) *outcome.StepProfile {
		return &outcome.StepProfile{Clients: 10, Repeat: 1, ProfileSummary: &watch.ProfileSummary{Kind: kind,
			Top:     []watch.FuncShare{{Name: top, Share: 0.4}},
			Buckets: []watch.FuncShare{{Name: "waiting for a connection", Share: conn}, {Name: "elsewhere", Share: 1 - conn}}}}
	}
	res := &outcome.Result{Runs: []*outcome.Run{
		{Name: "graph 2", Profiles: []*outcome.StepProfile{prof("fgprof", 0.55, "runtime.gopark")}},
		{Name: "graph 3", Profiles: []*outcome.StepProfile{prof("fgprof", 0, "sqlite3.step")}},
	}}
	got := profilesSideBySide(res, 2)
	for _, want := range []string{
		"### fgprof profile at 10 clients, side by side",
		"| | graph 2 | graph 3 |",
		"| waiting for a connection | 55 % | 0 % |",
		"| top 1 | 40.0 % runtime.gopark | 40.0 % sqlite3.step |",
		"| top 2 | - | - |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("side by side:\n%s\nwant a line %q", got, want)
		}
	}
	res.Runs = res.Runs[:1]
	if got := profilesSideBySide(res, 2); got != "" {
		t.Errorf("one run profiled: %q; want nothing side by side", got)
	}
}
