package docs

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// reports reads the committed reports' experiment.json, each once.
type reports struct {
	dir   string
	cache map[string]*report
}

// report is the part of an experiment.json the pages quote
// (loadtest/SCHEMA.md, "Experiment").
type report struct {
	folder      string
	Start       time.Time     `json:"start"`
	Quick       bool          `json:"quick,omitempty"`
	Runs        []*reportRun  `json:"runs"`
	Claims      []reportClaim `json:"claims"`
	Disturbance *disturbance  `json:"disturbance,omitempty"`
}

// disturbance is what the run did about other work on the machine: off
// when it only read it, the points it measured again.
type disturbance struct {
	Off        bool `json:"off,omitempty"`
	Remeasured int  `json:"remeasured"`
}

type reportRun struct {
	Name     string           `json:"name"`
	Command  []string         `json:"command"`
	Points   []*reportPoint   `json:"points"`
	Profiles []*reportProfile `json:"profiles,omitempty"`
}

// reportProfile is a profile a run took (loadtest/SCHEMA.md, "Profile"):
// its kind ("cpu", "fgprof"), the samples' total (ns), the top functions
// by own samples and the buckets' shares of the samples in focus.
type reportProfile struct {
	Kind    string       `json:"kind"`
	Clients int          `json:"clients"`
	Repeat  int          `json:"repeat,omitempty"`
	Total   float64      `json:"total"`
	Top     []namedShare `json:"top,omitempty"`
	Buckets []namedShare `json:"buckets,omitempty"`
}

type namedShare struct {
	Name  string  `json:"name"`
	Share float64 `json:"share"`
}

type reportPoint struct {
	Clients int           `json:"clients"`
	SLO     []objective   `json:"slo,omitempty"`
	Summary *pointFigures `json:"summary,omitempty"`
}

// objective is an SLO objective's outcome at a point, as the report
// judged it.
type objective struct {
	Objective string  `json:"objective"`
	Value     float64 `json:"value"`
	Pass      bool    `json:"pass"`
}

// pointFigures are a point's medians over its repeats: the load's
// ("throughput", "mean_ms") and the server's readings ("busy workers").
type pointFigures struct {
	Total  map[string]spread `json:"total"`
	Server map[string]spread `json:"server,omitempty"`
}

type spread struct {
	Median float64 `json:"median"`
}

type reportClaim struct {
	ID      string   `json:"id"`
	Outcome string   `json:"outcome"`
	Control *outcome `json:"control,omitempty"`
}

type outcome struct {
	Outcome string `json:"outcome"`
}

// get reads docs/reports/NAME/experiment.json.
func (rs *reports) get(name string) (*report, error) {
	if r, ok := rs.cache[name]; ok {
		return r, nil
	}
	b, err := os.ReadFile(filepath.Join(rs.dir, name, "experiment.json"))
	if err != nil {
		return nil, err
	}
	r := &report{folder: name}
	if err := json.Unmarshal(b, r); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if r.Start.IsZero() {
		return nil, fmt.Errorf("%s: experiment.json has no start", name)
	}
	if rs.cache == nil {
		rs.cache = map[string]*report{}
	}
	rs.cache[name] = r
	return r, nil
}

// all reads every committed report that has an experiment.json, by folder.
func (rs *reports) all() ([]*report, error) {
	files, err := filepath.Glob(filepath.Join(rs.dir, "*", "experiment.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no experiment.json under %s/*/ (%v)", rs.dir, err)
	}
	var out []*report
	for _, f := range files {
		r, err := rs.get(filepath.Base(filepath.Dir(f)))
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// when is the run's start as the pages give it.
func (r *report) when() string { return r.Start.UTC().Format("2006-01-02 15:04 UTC") }

// cite names the report with its link and its date.
func (r *report) cite(link string, l lang) string {
	path := link + "/" + r.folder + "/report.md"
	ref := fmt.Sprintf("[%s](%s)", path, path)
	switch {
	case l == ja && r.Quick:
		return fmt.Sprintf("%s、%s の -quick 実行", ref, r.when())
	case l == ja:
		return fmt.Sprintf("%s、%s のフル実行", ref, r.when())
	case r.Quick:
		return fmt.Sprintf("%s, a -quick run of %s", ref, r.when())
	}
	return fmt.Sprintf("%s, the full run of %s", ref, r.when())
}

// A quote reads figures from one report, keeping the first it could not
// find, so that a text can be built in one go and checked once.
type quote struct {
	r   *report
	err error
}

func (q *quote) fail(format string, args ...any) {
	if q.err == nil {
		q.err = fmt.Errorf(q.r.folder+": "+format, args...)
	}
}

// run returns the run called name, or whose name begins "name:" ("graph
// 1" for "graph 1: 5 workers, 5 connections").
func (q *quote) run(name string) *reportRun {
	for _, u := range q.r.Runs {
		if u.Name == name || strings.HasPrefix(u.Name, name+":") {
			return u
		}
	}
	q.fail("no run %q", name)
	return &reportRun{Name: name}
}

// at returns u's point at that many clients, with figures.
func (q *quote) at(u *reportRun, clients int) *reportPoint {
	for _, p := range u.Points {
		if p.Clients == clients && p.Summary != nil {
			return p
		}
	}
	q.fail("run %q: no figures at %d clients", u.Name, clients)
	return &reportPoint{Clients: clients}
}

// peak returns u's point of the highest median throughput, as the report
// calls its peak.
func (q *quote) peak(u *reportRun) *reportPoint {
	var best *reportPoint
	for _, p := range u.Points {
		if p.Summary != nil && (best == nil || p.Summary.Total["throughput"].Median > best.Summary.Total["throughput"].Median) {
			best = p
		}
	}
	if best == nil {
		q.fail("run %q: no point with figures", u.Name)
		return &reportPoint{}
	}
	return best
}

// last returns u's last point (its most clients).
func (q *quote) last(u *reportRun) *reportPoint {
	if n := len(u.Points); n > 0 && u.Points[n-1].Summary != nil {
		return u.Points[n-1]
	}
	q.fail("run %q: no last point with figures", u.Name)
	return &reportPoint{}
}

// total returns a load figure's median ("throughput", "mean_ms", ...).
func (q *quote) total(u *reportRun, p *reportPoint, figure string) float64 {
	if p.Summary != nil {
		if s, ok := p.Summary.Total[figure]; ok {
			return s.Median
		}
	}
	q.fail("run %q at %d clients: no %s", u.Name, p.Clients, figure)
	return 0
}

// server returns a server reading's median ("busy workers", ...).
func (q *quote) server(u *reportRun, p *reportPoint, reading string) float64 {
	if p.Summary != nil {
		if s, ok := p.Summary.Server[reading]; ok {
			return s.Median
		}
	}
	q.fail("run %q at %d clients: no reading %q", u.Name, p.Clients, reading)
	return 0
}

// has says whether p has the server reading.
func (p *reportPoint) has(reading string) bool {
	if p.Summary == nil {
		return false
	}
	_, ok := p.Summary.Server[reading]
	return ok
}

// flag returns the value of the run's command's last flag -name.
func (q *quote) flag(u *reportRun, name string) string {
	v := ""
	for i, a := range u.Command {
		if a == "-"+name && i+1 < len(u.Command) {
			v = u.Command[i+1]
		}
	}
	if v == "" {
		q.fail("run %q: its command has no -%s", u.Name, name)
	}
	return v
}

// knobs says the run's workers and pool, "5/5".
func (q *quote) knobs(u *reportRun) string { return q.flag(u, "workers") + "/" + q.flag(u, "pool") }

// capacity says how much of the CPU the board took at p: its share of its
// capacity where the report has it (calibrated files), its core's busy
// time otherwise.
func (q *quote) capacity(u *reportRun, p *reportPoint, l lang) string {
	if p.has("server CPU share") {
		v := pct(q.server(u, p, "server CPU share"))
		if l == ja {
			return "掲示板の CPU は待ち時間なしのときの " + v
		}
		return "the board taking " + v + " of the CPU it took with no wait"
	}
	v := pct(q.server(u, p, "server core busy"))
	if l == ja {
		return "コアは " + v + " 使用"
	}
	return "its core " + v + " busy"
}

// objective returns p's outcome of an SLO objective ("p99<10ms"), as the
// report judged it: its value and whether it passed.
func (q *quote) objective(u *reportRun, p *reportPoint, name string) (float64, bool) {
	for _, o := range p.SLO {
		if o.Objective == name {
			return o.Value, o.Pass
		}
	}
	q.fail("run %q at %d clients: no SLO objective %s", u.Name, p.Clients, name)
	return 0, false
}
