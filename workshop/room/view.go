package room

import (
	"fmt"
	"slices"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/live"
	"bbslab/loadtest/tune"
	"bbslab/loadtest/watch"
	"bbslab/machine"
)

// View is what the room shows: the page draws it and /room.json is it.
type View struct {
	Uploads  int       `json:"uploads"`
	Updated  time.Time `json:"updated,omitzero"`
	Laptops  []Laptop  `json:"laptops"`
	Claims   []Claims  `json:"claims"`
	Curves   []Curves  `json:"curves"`
	Tunings  []Tuning  `json:"tunings"`
	Disagree int       `json:"disagreements"`
}

// Laptop is one laptop's machine and files. Host is the generator's
// machine of its latest result that names one; Steal and Others are the
// most the hypervisor and other work took of the generator's CPUs over
// any measured span of its results, in % of a core (absent where no
// result says).
type Laptop struct {
	Name   string            `json:"name"`
	Host   *machine.HostInfo `json:"host,omitempty"`
	Steal  *float64          `json:"steal_percent,omitempty"`
	Others *float64          `json:"others_percent,omitempty"`
	Files  []File            `json:"files"`
}

// File is one upload as the room stored it.
type File struct {
	Stored   string    `json:"stored"`
	Kind     string    `json:"kind"`
	Name     string    `json:"name,omitempty"`
	Received time.Time `json:"received"`
}

// Claims are one experiment's claims, claim by laptop: each laptop's
// latest experiment.json of that name.
type Claims struct {
	Experiment string     `json:"experiment"`
	Laptops    []string   `json:"laptops"`
	Rows       []ClaimRow `json:"rows"`
}

// ClaimRow is one claim across the laptops; Disagree says their
// verdicts differ. Cells follow Claims.Laptops.
type ClaimRow struct {
	ID       string `json:"id"`
	Text     string `json:"text"`
	Disagree bool   `json:"disagree"`
	Cells    []Cell `json:"cells"`
}

// Cell is one laptop's verdict on a claim with the readings behind it:
// each check's two sides as measured (median and range) and the whole
// check in words; the control's outcome; why it was not measured.
type Cell struct {
	Outcome  live.Outcome `json:"outcome,omitempty"`
	Quick    bool         `json:"quick,omitempty"`
	Readings []string     `json:"readings,omitempty"`
	Checks   []string     `json:"checks,omitempty"`
	Control  live.Outcome `json:"control,omitempty"`
	Reason   string       `json:"reason,omitempty"`
}

// Curves are one run's throughput against clients, one curve a laptop:
// a run of an experiment (Source its name), or a sweep or single runs of
// one name.
type Curves struct {
	ID     string  `json:"id"`
	Sig    string  `json:"-"` // the uploads drawn (group.sig)
	Source string  `json:"source"`
	Run    string  `json:"run"`
	Lines  []Curve `json:"lines"`
}

// Curve is one laptop's points.
type Curve struct {
	Laptop string  `json:"laptop"`
	Points []Point `json:"points"`
}

// Point is one client count's throughput (successful responses a
// second): the median over repeats, with their range.
type Point struct {
	Clients    int             `json:"clients"`
	Throughput loadtest.Spread `json:"throughput"`
}

// Tuning is one tuning a laptop ran: alone (loadtest tune) or in an
// experiment.
type Tuning struct {
	Laptop  string  `json:"laptop"`
	Source  string  `json:"source"`
	Start   string  `json:"start"`
	Winner  string  `json:"winner"`
	Best    float64 `json:"winner_throughput"`
	Outcome string  `json:"outcome"`
	Stopped string  `json:"stopped"`
}

// View returns what the room holds now.
func (r *Room) View() View {
	r.mu.Lock()
	ups := slices.Clone(r.uploads)
	r.mu.Unlock()
	v := View{Uploads: len(ups), Laptops: laptops(ups), Claims: claimTables(ups), Tunings: tunings(ups)}
	v.Curves, _ = curves(ups)
	if len(ups) > 0 {
		v.Updated = ups[len(ups)-1].Received
	}
	for _, c := range v.Claims {
		for _, row := range c.Rows {
			if row.Disagree {
				v.Disagree++
			}
		}
	}
	return v
}

// laptops lists the laptops in the order they first posted.
func laptops(ups []*upload) []Laptop {
	var out []Laptop
	at := map[string]int{}
	for _, u := range ups {
		i, ok := at[u.Laptop]
		if !ok {
			i = len(out)
			at[u.Laptop] = i
			out = append(out, Laptop{Name: u.Laptop})
		}
		l := &out[i]
		l.Files = append(l.Files, File{Stored: u.File, Kind: u.Kind, Name: u.Name, Received: u.Received})
		for _, res := range u.Runs {
			if env := res.Environment; env != nil && env.Generator != nil {
				l.Host = env.Generator
			}
			if c := res.Cost.Cores; c != nil {
				l.Others = maxOf(l.Others, &c.Interference)
				l.Steal = maxOf(l.Steal, c.Steal)
			}
		}
	}
	return out
}

func maxOf(a, b *float64) *float64 {
	if a == nil || (b != nil && *b > *a) {
		return b
	}
	return a
}

// latest returns, for each laptop that posted one, its latest upload
// that keep says to, with the laptops in the order they first did.
func latest(ups []*upload, keep func(*upload) bool) (names []string, by map[string]*upload) {
	by = map[string]*upload{}
	for _, u := range ups {
		if !keep(u) {
			continue
		}
		if by[u.Laptop] == nil {
			names = append(names, u.Laptop)
		}
		by[u.Laptop] = u
	}
	return names, by
}

// claimTables returns each experiment's claims, claim by laptop, in the
// order the experiments first arrived.
func claimTables(ups []*upload) []Claims {
	var out []Claims
	for _, name := range experimentNames(ups) {
		names, by := latest(ups, func(u *upload) bool { return u.Experiment != nil && u.Name == name })
		t := Claims{Experiment: name, Laptops: names}
		row := map[string]int{}
		for i, laptop := range names {
			for _, c := range by[laptop].Experiment.Claims {
				j, ok := row[c.ID]
				if !ok {
					j = len(t.Rows)
					row[c.ID] = j
					t.Rows = append(t.Rows, ClaimRow{ID: c.ID, Text: c.Text, Cells: make([]Cell, len(names))})
				}
				cell := Cell{Outcome: c.Outcome, Quick: c.Quick, Reason: c.Reason}
				for _, k := range c.Checks {
					cell.Readings = append(cell.Readings, sideText(k.Left.Value, k.Left.Missing)+" "+k.Op+" "+sideText(k.Right.Value, k.Right.Missing))
					cell.Checks = append(cell.Checks, k.Text)
				}
				if c.Control != nil {
					cell.Control = c.Control.Outcome
				}
				t.Rows[j].Cells[i] = cell
			}
		}
		for j := range t.Rows {
			t.Rows[j].Disagree = disagree(t.Rows[j].Cells)
		}
		if len(t.Rows) > 0 {
			out = append(out, t)
		}
	}
	return out
}

// disagree says whether the laptops that decided a claim differ on it.
func disagree(cells []Cell) bool {
	var first live.Outcome
	for _, c := range cells {
		switch {
		case c.Outcome == "":
		case first == "":
			first = c.Outcome
		case c.Outcome != first:
			return true
		}
	}
	return false
}

func experimentNames(ups []*upload) []string {
	var names []string
	for _, u := range ups {
		if u.Experiment != nil && !slices.Contains(names, u.Name) {
			names = append(names, u.Name)
		}
	}
	return names
}

// sideText is one side of a check: its median with the range when the
// repeats differ, or why it is missing.
func sideText(s loadtest.Spread, missing string) string {
	switch {
	case missing != "":
		return "missing (" + missing + ")"
	case s.N > 1 && s.Min != s.Max:
		return fmt.Sprintf("%.4g (%.4g-%.4g)", s.Median, s.Min, s.Max)
	}
	return fmt.Sprintf("%.4g", s.Median)
}

// tunings lists every tuning, alone or in an experiment, in the order
// posted (each laptop's every upload: a tuning is one attempt).
func tunings(ups []*upload) []Tuning {
	var out []Tuning
	add := func(laptop, source string, res *tune.Result) {
		if res == nil {
			return
		}
		t := Tuning{Laptop: laptop, Source: source, Start: knobs(res.Start), Winner: knobs(res.Winner), Outcome: res.Outcome, Stopped: res.Stopped}
		for _, st := range res.Steps {
			if st.Knobs == res.Winner {
				t.Best = st.Throughput.Median
			}
		}
		out = append(out, t)
	}
	for _, u := range ups {
		if u.Tune != nil {
			add(u.Laptop, "loadtest tune", u.Tune.Result)
		}
		if u.Experiment != nil {
			for _, tr := range u.Experiment.Tunes {
				add(u.Laptop, "experiment "+u.Name+", "+tr.Run, tr.Result)
			}
		}
	}
	return out
}

// knobs is a setting as the tuner prints it, WORKERS/POOL.
func knobs(k watch.Knobs) string { return fmt.Sprintf("%d/%d", k.Workers, k.Pool) }
