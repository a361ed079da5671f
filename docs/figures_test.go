package docs

import (
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

var updateFigures = flag.Bool("update", false, "rewrite the pages' figures generated from the committed reports (go test ./docs -run TestFiguresFromReports -update)")

// The markers around a generated passage: the name says which passage, so
// that a page can hold several.
const (
	figuresBegin = "<!-- figures %s: generated from the committed reports by go test ./docs -run TestFiguresFromReports -update -->"
	figuresEnd   = "<!-- end of figures %s -->"
)

// A figureBlock is a passage of a page, between its markers, generated from
// the committed reports: text returns it, given the reports and how the page
// links their folder.
type figureBlock struct {
	page string // from docs/
	name string
	link string // the reports' folder from the page's
	text func(rs *reports, link string) (string, error)
}

// figureBlocks lists every generated passage. The prose around them (why
// each figure comes out as it does) is written by hand; the figures are not.
func figureBlocks() []figureBlock {
	var out []figureBlock
	for _, p := range []struct {
		page string
		l    lang
	}{{"workshop.md", en}, {"workshop.ja.md", ja}} {
		l := p.l
		out = append(out,
			figureBlock{p.page, "exercise-1", "reports", func(rs *reports, link string) (string, error) { return graph1Text(rs, link, l) }},
			figureBlock{p.page, "exercise-3", "reports", func(rs *reports, link string) (string, error) { return graphsText(rs, link, l) }},
			figureBlock{p.page, "exercise-4", "reports", func(rs *reports, link string) (string, error) { return profileText(rs, link, l) }},
			figureBlock{p.page, "exercise-6", "reports", func(rs *reports, link string) (string, error) { return noPoolText(rs, link, l) }},
			figureBlock{p.page, "exercise-7", "reports", func(rs *reports, link string) (string, error) { return poolSizingText(rs, link, l) }},
			figureBlock{p.page, "exercise-8", "reports", func(rs *reports, link string) (string, error) { return sloText(rs, link, l) }},
		)
	}
	return append(out, figureBlock{"../README.md", "results", "docs/reports", readmeText})
}

// TestFiguresFromReports holds every figure the workshop (both languages)
// and the README's "Results on this machine" quote from a committed report
// to that report's experiment.json: each generated passage must read as
// the reports give it now. A report regenerated, or a passage edited by
// hand, fails here; -update rewrites the passages.
func TestFiguresFromReports(t *testing.T) {
	rs := &reports{dir: "reports"}
	byPage := map[string]map[string]string{}
	var pages []string
	for _, b := range figureBlocks() {
		text, err := b.text(rs, b.link)
		if err != nil {
			t.Errorf("%s, figures %s: %v", b.page, b.name, err)
			continue
		}
		if byPage[b.page] == nil {
			byPage[b.page] = map[string]string{}
			pages = append(pages, b.page)
		}
		byPage[b.page][b.name] = text
	}
	if t.Failed() {
		t.Fatal("the pages are left as they are: a passage could not be generated")
	}
	for _, page := range pages {
		doc, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		filled, problems := fillFigures(string(doc), byPage[page])
		for _, p := range problems {
			t.Errorf("%s: %s", page, p)
		}
		switch {
		case *updateFigures && filled != string(doc):
			if err := os.WriteFile(page, []byte(filled), 0o644); err != nil {
				t.Fatal(err)
			}
		case !*updateFigures:
			for _, d := range staleFigures(string(doc), byPage[page]) {
				t.Errorf("%s: figures %s differ from the committed reports; run go test ./docs -run TestFiguresFromReports -update\n got:\n%s\nwant:\n%s", page, d.name, d.got, d.want)
			}
		}
	}
}

// fillFigures returns doc with the text between each passage's markers
// replaced by want's, and what is wrong with the markers: a passage of want
// the page lacks, one without its end, one the page holds that nothing
// generates.
func fillFigures(doc string, want map[string]string) (string, []string) {
	var problems []string
	for _, name := range slices.Sorted(maps.Keys(want)) {
		begin, end := fmt.Sprintf(figuresBegin, name), fmt.Sprintf(figuresEnd, name)
		before, rest, ok := strings.Cut(doc, begin)
		if !ok {
			problems = append(problems, fmt.Sprintf("no figures %s: want them between %q and %q", name, begin, end))
			continue
		}
		_, after, ok := strings.Cut(rest, end)
		if !ok {
			problems = append(problems, fmt.Sprintf("figures %s: no end marker %q", name, end))
			continue
		}
		if strings.Contains(after, begin) {
			problems = append(problems, fmt.Sprintf("figures %s: twice", name))
		}
		doc = before + begin + "\n" + want[name] + "\n" + end + after
	}
	for _, name := range markedFigures(doc) {
		if _, ok := want[name]; !ok {
			problems = append(problems, fmt.Sprintf("figures %s: nothing generates them (a passage renamed or removed: remove its markers)", name))
		}
	}
	return doc, problems
}

// A staleFigure is a passage whose text differs from what the reports give.
type staleFigure struct{ name, got, want string }

// staleFigures returns the passages of doc whose text between the markers
// is not want's.
func staleFigures(doc string, want map[string]string) []staleFigure {
	var out []staleFigure
	for _, name := range slices.Sorted(maps.Keys(want)) {
		_, rest, ok1 := strings.Cut(doc, fmt.Sprintf(figuresBegin, name))
		got, _, ok2 := strings.Cut(rest, fmt.Sprintf(figuresEnd, name))
		if !ok1 || !ok2 {
			continue // fillFigures says so
		}
		if got = strings.TrimPrefix(strings.TrimSuffix(got, "\n"), "\n"); got != want[name] {
			out = append(out, staleFigure{name, got, want[name]})
		}
	}
	return out
}

// markedFigures returns the names of the passages doc marks.
func markedFigures(doc string) []string {
	prefix, suffix, _ := strings.Cut(figuresBegin, "%s")
	var out []string
	for _, line := range strings.Split(doc, "\n") {
		if name, ok := strings.CutPrefix(line, prefix); ok {
			if name, ok := strings.CutSuffix(name, suffix); ok {
				out = append(out, name)
			}
		}
	}
	return out
}

// TestFillFigures holds the markers' rules: a passage edited by hand is
// stale and is rewritten, a passage without its end, one the page lacks
// and one nothing generates are problems.
func TestFillFigures(t *testing.T) {
	begin := func(n string) string { return fmt.Sprintf(figuresBegin, n) }
	end := func(n string) string { return fmt.Sprintf(figuresEnd, n) }
	want := map[string]string{"a": "Graph 1 peaked at 3,961/s.", "b": "9 of 9 reproduced."}
	good := "intro\n\n" + begin("a") + "\n" + want["a"] + "\n" + end("a") + "\n\nwhy\n" + begin("b") + "\n" + want["b"] + "\n" + end("b") + "\n"
	if got, problems := fillFigures(good, want); got != good || len(problems) > 0 {
		t.Errorf("fillFigures(a page as generated) = %q, %q; want it unchanged, no problems", got, problems)
	}
	if s := staleFigures(good, want); len(s) > 0 {
		t.Errorf("staleFigures(a page as generated) = %v; want none", s)
	}

	edited := strings.Replace(good, "3,961/s", "2,661/s", 1)
	s := staleFigures(edited, want)
	if len(s) != 1 || s[0].name != "a" || s[0].got != "Graph 1 peaked at 2,661/s." {
		t.Errorf("staleFigures(a passage edited by hand) = %+v; want figures a, got the edited text", s)
	}
	if got, problems := fillFigures(edited, want); got != good || len(problems) > 0 {
		t.Errorf("fillFigures(a passage edited by hand) = %q, %q; want the page as generated", got, problems)
	}
	if got, _ := fillFigures("x\n"+begin("a")+"\n"+end("a")+"\ny\n"+begin("b")+"\nold\n"+end("b")+"\n", want); got != "x\n"+begin("a")+"\n"+want["a"]+"\n"+end("a")+"\ny\n"+begin("b")+"\n"+want["b"]+"\n"+end("b")+"\n" {
		t.Errorf("fillFigures(empty and old passages) = %q; want both filled", got)
	}

	for _, c := range []struct {
		name, doc, problem string
	}{
		{"no end", strings.Replace(good, end("b"), "", 1), "figures b: no end marker"},
		{"missing", strings.Replace(good, begin("b"), "", 1), "no figures b"},
		{"twice", good + begin("a") + "\n" + end("a") + "\n", "figures a: twice"},
		{"unknown", good + begin("c") + "\nold\n" + end("c") + "\n", "figures c: nothing generates them"},
	} {
		_, problems := fillFigures(c.doc, want)
		if len(problems) != 1 || !strings.Contains(problems[0], c.problem) {
			t.Errorf("fillFigures(%s) problems = %q; want one saying %q", c.name, problems, c.problem)
		}
	}
}

// TestFiguresFollowTheReports generates the passages from reports written
// here, then from the same reports with one figure changed (a report
// regenerated): the passage reads the new figure, and the page generated
// from the first is then stale.
func TestFiguresFollowTheReports(t *testing.T) {
	dir := t.TempDir()
	writeFakeReports(t, dir, 1)
	first := generateAll(t, dir)
	for _, want := range []struct{ block, text string }{
		{"exercise-1", "gave 500/s at 5 clients and 1,000/s at 10 (2.00 x)"},
		{"exercise-3", "Graph 3 (10/10) peaked at 3,000/s at 20 clients (1.50 x graph 1's)"},
		{"exercise-3", "Claims: 8 of 8 reproduced, every control not reproduced."},
		{"exercise-6", "pooled 210/s against 17.5/s without a pool at their peaks (10 clients), 12.00 x"},
		{"exercise-7", "at 64 clients 300, **900** and 600/s for pools of 1, 4 and 16"},
		{"exercise-4", "graph 2's requests spent 50 % of their time waiting for a connection (`acquireConn`) and 50 % in the database's wait (`networkWait`), graph 3's 0 % and 100 %; graph 1's waited 50 % for a worker"},
		{"exercise-4", "the board used 1.00 s of CPU in graph 2 and 1.50 s in graph 3 (1.50 x), 40 % and 40 % of it in SQL"},
		{"exercise-8", "10/5 served 2,000/s with p99 12.00 ms, missing it (first missed at 20 clients)"},
		{"exercise-6", "Claims: 1 of 2 reproduced, 1 does not discriminate (p2), controls: 1 reproduced (p2), 1 not reproduced."},
		{"results", "| [article](docs/reports/article/report.md) | 2026-12-06 10:00 | 8 of 8 reproduced | every control not reproduced |"},
		{"results", "| the other 2: [no-pool](docs/reports/no-pool/report.md), [pool-sizing](docs/reports/pool-sizing/report.md) | 2026-12-05; 2026-12-06 (pool-sizing) | 1 of 2 reproduced; no-pool's p2 does not discriminate | 1 of 2 not reproduced; no-pool's p2 reproduced |"},
	} {
		if got := strings.Join(strings.Fields(first["workshop.md"][want.block]+first["../README.md"][want.block]), " "); !strings.Contains(got, want.text) {
			t.Errorf("figures %s = %q; want it to say %q", want.block, got, want.text)
		}
	}
	page := ""
	for name, text := range first["workshop.md"] {
		page += fmt.Sprintf(figuresBegin, name) + "\n" + text + "\n" + fmt.Sprintf(figuresEnd, name) + "\n\n"
	}

	writeFakeReports(t, dir, 1.1)
	second := generateAll(t, dir)
	stale := staleFigures(page, second["workshop.md"])
	var names []string
	for _, s := range stale {
		names = append(names, s.name)
	}
	// Every passage quotes a throughput or a CPU time, and every one moved.
	if len(stale) != 6 {
		t.Errorf("after the reports' throughputs moved, stale figures = %q; want all 6 of workshop.md", names)
	}
	if !strings.Contains(second["workshop.md"]["exercise-3"], "3,300/s") {
		t.Errorf("figures exercise-3 after graph 3 peaked at 3,300/s = %q; want it to say so", second["workshop.md"]["exercise-3"])
	}
}

// TestFiguresNameWhatIsMissing: a report without a figure a passage quotes
// fails with the report, the run, the point and the figure.
func TestFiguresNameWhatIsMissing(t *testing.T) {
	dir := t.TempDir()
	writeFakeReports(t, dir, 1)
	r, err := (&reports{dir: dir}).get("article")
	if err != nil {
		t.Fatal(err)
	}
	delete(r.Runs[0].Points[1].Summary.Server, "queued")
	writeJSON(t, filepath.Join(dir, "article", "experiment.json"), r)
	_, err = graph1Text(&reports{dir: dir}, "reports", en)
	if err == nil || !strings.Contains(err.Error(), `article: run "graph 1: 5 workers, 5 connections" at 10 clients: no reading "queued"`) {
		t.Errorf("graph1Text without graph 1's queue at 10 clients: %v; want an error naming it", err)
	}
}

// generateAll returns every passage generated from the reports in dir, by
// page and name.
func generateAll(t *testing.T, dir string) map[string]map[string]string {
	t.Helper()
	rs := &reports{dir: dir}
	out := map[string]map[string]string{}
	for _, b := range figureBlocks() {
		text, err := b.text(rs, b.link)
		if err != nil {
			t.Fatalf("figures %s of %s: %v", b.name, b.page, err)
		}
		if out[b.page] == nil {
			out[b.page] = map[string]string{}
		}
		out[b.page][b.name] = text
	}
	return out
}

// writeFakeReports writes the reports the passages read into dir: the
// article's three graphs (throughputs times scale), no-pool's four runs
// and pool-sizing's three.
func writeFakeReports(t *testing.T, dir string, scale float64) {
	t.Helper()
	start := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	point := func(clients int, tp, meanMs, p99 float64, server map[string]float64) *reportPoint {
		p := &reportPoint{Clients: clients, SLO: []objective{{"p99<10ms", p99, p99 < 10}}, Summary: &pointFigures{
			Total:  map[string]spread{"throughput": {tp}, "mean_ms": {meanMs}, "p99_ms": {p99}},
			Server: map[string]spread{},
		}}
		for k, v := range server {
			p.Summary.Server[k] = spread{v}
		}
		return p
	}
	graph := func(name string, workers, pool int, tps map[int]float64) *reportRun {
		u := &reportRun{Name: name, Command: []string{"bbs", "-workers", strconv.Itoa(workers), "-pool", strconv.Itoa(pool)}}
		// Three repeats of each kind at 10 clients: the passage quotes
		// their medians (the first repeat's total, between the others).
		for i, f := range []float64{1, 0.9, 1.2} {
			cpuNs := tps[10] * scale * 1e6 * f
			fg := []namedShare{{"waiting for a worker", 0}, {"waiting for a connection", 0}, {"the database's wait", 1}}
			switch {
			case workers > 5 && pool == 5:
				fg = []namedShare{{"waiting for a worker", 0}, {"waiting for a connection", 0.5 * f}, {"the database's wait", 1 - 0.5*f}}
			case workers == 5:
				fg = []namedShare{{"waiting for a worker", 0.5 * f}, {"waiting for a connection", 0}, {"the database's wait", 1 - 0.5*f}}
			}
			u.Profiles = append(u.Profiles,
				&reportProfile{Kind: "cpu", Clients: 10, Repeat: i + 1, Total: cpuNs, Top: []namedShare{{"Syscall6", 0.25}, {"cgocall", 0.1}},
					Buckets: []namedShare{{"in SQL", 0.4}, {"elsewhere", 0.6}}},
				&reportProfile{Kind: "fgprof", Clients: 10, Repeat: i + 1, Total: 1e11, Buckets: fg})
		}
		for _, c := range []int{5, 10, 20, 30} {
			tp := tps[c] * scale
			u.Points = append(u.Points, point(c, tp, 1000*float64(c)/tp, 2+float64(c)/2, map[string]float64{
				"busy workers": float64(min(c, workers)), "queued": float64(max(c-workers, 0)), "worker wait": 1,
				"connections in use": float64(min(c, pool)), "acquires waiting": float64(max(min(c, workers)-pool, 0)), "server CPU share": 60,
			}))
		}
		return u
	}
	var claims []reportClaim
	for _, id := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		claims = append(claims, reportClaim{ID: id, Outcome: "reproduced", Control: &outcome{"not reproduced"}})
	}
	writeJSON(t, filepath.Join(dir, "article", "experiment.json"), &report{Start: start, Claims: claims, Runs: []*reportRun{
		graph("graph 1: 5 workers, 5 connections", 5, 5, map[int]float64{5: 500, 10: 1000, 20: 2000, 30: 1900}),
		graph("graph 2: 10 workers, 5 connections", 10, 5, map[int]float64{5: 500, 10: 1000, 20: 2000, 30: 1900}),
		graph("graph 3: 10 workers, 10 connections", 10, 10, map[int]float64{5: 500, 10: 1500, 20: 3000, 30: 2800}),
	}})
	single := func(name string, clients int, tp float64) *reportRun {
		return &reportRun{Name: name, Points: []*reportPoint{point(clients, tp*scale, 1, 1, nil)}}
	}
	writeJSON(t, filepath.Join(dir, "no-pool", "experiment.json"), &report{Start: start.Add(-24 * time.Hour), Claims: []reportClaim{
		{ID: "p1", Outcome: "reproduced", Control: &outcome{"not reproduced"}},
		{ID: "p2", Outcome: "does not discriminate", Control: &outcome{"reproduced"}},
	}, Runs: []*reportRun{
		single("SQLite pooled", 10, 210), single("SQLite no pool", 10, 17.5), single("PostgreSQL pooled", 10, 188), single("PostgreSQL no pool", 10, 12.8),
	}})
	writeJSON(t, filepath.Join(dir, "pool-sizing", "experiment.json"), &report{Start: start, Runs: []*reportRun{
		single("pool 1", 64, 300), single("pool 4", 64, 900), single("pool 16", 64, 600),
	}})
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
