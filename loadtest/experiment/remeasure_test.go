package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"bbslab/loadtest/claim"
	"bbslab/loadtest/disturb"
	"bbslab/loadtest/live"
	"bbslab/loadtest/measure"
	"bbslab/loadtest/outcome"
	"bbslab/loadtest/report"
	"bbslab/loadtest/resultfile"
	"bbslab/loadtest/watch"
)

func TestDisturbanceChecked(t *testing.T) {
	base := tinyText(t, "ok")
	for _, tt := range []struct{ section, want string }{
		{"threshold = -1", "disturbance.threshold = -1"},
		{"max_attempts = 11", "disturbance.max_attempts = 11"},
		{`max_extra = "2h"`, "disturbance.max_extra = 2h0m0s"},
		{"cpu_per_request = -5", "disturbance.cpu_per_request = -5"},
		{"attempts = 2", `unknown key "disturbance.attempts"`},
	} {
		_, err := parse("d.toml", []byte(strings.Replace(base, "[load]", "[disturbance]\n"+tt.section+"\n[load]", 1)))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("[disturbance] %s: err = %v; want one that says %q", tt.section, err, tt.want)
		}
	}
	e, err := parse("d.toml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	d := e.Disturbance
	// 2 runs x 2 counts x 1 repeat x 1.7 s, a quarter of it.
	if d.Threshold != measure.DefaultThreshold || d.MaxAttempts != measure.DefaultMaxAttempts || d.CPUPerRequest != measure.DefaultCPUPerRequest || e.maxExtra() != 1700*time.Millisecond {
		t.Errorf("defaults: %+v, max_extra %v; want %d points, %d attempts, %d %%, a quarter of the 6.8 s planned", d, e.maxExtra(), measure.DefaultThreshold, measure.DefaultMaxAttempts, measure.DefaultCPUPerRequest)
	}
}

// disturbTarget describes the fake board with the readings of other work
// on its core, as contract.Board describes the board's.
var disturbTarget = watch.Target{Validate: validateFake, EnvironmentKeys: fakeEnvironment,
	Interference: watch.Stat{Name: "server interference", Path: "machine.own_cpus.interference_seconds_total", Kind: watch.Counter, Scale: 100, Unit: "% of a core"},
	Steal:        watch.Stat{Name: "server steal", Path: "machine.own_cpus.steal_seconds_total", Kind: watch.Counter, Scale: 100, Unit: "% of a core"},
	ProcessCPU:   watch.Stat{Name: "server CPU", Path: "cpu_seconds_total", Kind: watch.Counter, Scale: 100, Unit: "% of a core"},
}

// disturbExperiment is an experiment against the fake board whose
// readings the test sets through the control file: runs (of "all",
// "each"), clients and repeats as given, interleaved, steps of 1.2 s, and
// extra TOML (claims, [disturbance]).
func disturbExperiment(t *testing.T, control string, runs []string, clients string, repeats int, extra string) *Experiment {
	t.Helper()
	text := fmt.Sprintf(`
name = "disturbed"
[server]
command = [%q, "-test.run=^TestFakeBoardProcess$", "--", "-addr", "127.0.0.1:{{port}}", "-admin-addr", "127.0.0.1:{{admin_port}}"]
env = ["FAKE_BOARD_MODE=ok", "FAKE_CONTROL=%s"]
ready = "http://127.0.0.1:{{admin_port}}/readyz"
start_timeout = "5s"
cpus = [0]
[client]
cpus = [1] # its own CPU: on the server's, the fake board's real CPU (which its "server CPU" does not report) would read as others' work on the generator's cores
[load]
clients = %s
repeats = %d
interleave = true
warmup = "300ms"
duration = "1200ms"
think = "5ms"
[[load.request]]
url = "http://127.0.0.1:{{port}}/bbs?cmd={{cmd}}&n=5"
expect = 200
[stats]
url = "http://127.0.0.1:{{admin_port}}/admin/stats"
[[stats.reading]]
name = "requests"
path = "commands.AllView.requests"
kind = "counter"
unit = "/s"
%s
`, os.Args[0], control, clients, repeats, extra)
	for _, r := range runs {
		cmd := map[string]string{"all": "AllView", "each": "EachGetView"}[r]
		text += fmt.Sprintf("[[run]]\nname = %q\nvars = { cmd = %q }\n", r, cmd)
	}
	e, err := parse("disturbed.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	e.Dir = t.TempDir()
	return e
}

// controlLog is an experiment's log that hands each line to on: the
// test's lever on what the fake board's readings say, step by step.
type controlLog struct {
	mu   sync.Mutex
	all  strings.Builder
	part string
	on   func(line string)
}

func (c *controlLog) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.all.Write(b)
	c.part += string(b)
	for {
		i := strings.IndexByte(c.part, '\n')
		if i < 0 {
			break
		}
		line := c.part[:i]
		c.part = c.part[i+1:]
		c.on(line)
	}
	return len(b), nil
}

func (c *controlLog) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.all.String()
}

// setControl writes the fake board's control file; the board reads it
// within 10 ms, well inside the next step's warm-up.
func setControl(t *testing.T, path, text string) {
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Error(err)
	}
}

// attemptsAt returns the measurements of a run's point.
func attemptsAt(t *testing.T, res *outcome.Result, run string, clients int) *outcome.Point {
	t.Helper()
	for _, r := range res.Runs {
		for _, p := range r.Points {
			if r.Name == run && p.Clients == clients {
				return p
			}
		}
	}
	t.Fatalf("no point %s at %d clients", run, clients)
	return nil
}

const throughputClaim = `
[[claim]]
id = "%[1]s"
source = "this test"
text = "%[2]s serves at %[3]d clients"
[[claim.check]]
left  = { run = "%[2]s", clients = %[3]d, metric = "throughput" }
op    = ">"
right = { value = 0 }
`

// TestTransientDisturbanceRemeasured disturbs one step of an interleaved
// experiment: that repeat is measured again at once, in its sweep, the
// disturbed attempt stays in the JSON dropped with its interference and
// reason, and the claims are decided on the clean attempts, pair by pair.
func TestTransientDisturbanceRemeasured(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an experiment of 10 steps")
	}
	t.Parallel() // judged on the fake board's control file alone (serverCoresOnly), whatever else runs
	control := filepath.Join(t.TempDir(), "control")
	claims := fmt.Sprintf(throughputClaim, "all-serves", "all", 2) + `
[[claim]]
id = "pairs"
source = "this test"
text = "all is not below each at 2 clients"
[[claim.check]]
left  = { run = "all", clients = 2, metric = "throughput" }
op    = "not_below"
right = { run = "each", clients = 2, metric = "throughput", factor = 0.01 }
`
	e := disturbExperiment(t, control, []string{"all", "each"}, "[1, 2]", 2, claims)
	log := &controlLog{on: func(line string) {
		switch {
		case strings.Contains(line, "run each: repeat 1/2, 1 clients:"):
			setControl(t, control, "interference=60") // on for all at 2 clients, repeat 1
		case strings.Contains(line, "DISTURBED"):
			setControl(t, control, "interference=0")
		}
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out := t.TempDir()
	res, err := Run(ctx, e, Options{Target: disturbTarget, Out: out, Log: log, serverCoresOnly: true})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, log)
	}
	p := attemptsAt(t, res, "all", 2)
	if len(p.Repeats) != 3 || !p.Repeats[0].Disturbed || !p.Repeats[0].Dropped || p.Repeats[1].Dropped || p.Repeats[1].Repeat != 1 || p.Repeats[1].Attempt != 2 {
		t.Fatalf("all at 2 clients: %d attempts %s; want 3: repeat 1 disturbed and dropped, measured again (attempt 2), then repeat 2\n%s", len(p.Repeats), attemptsJSON(p), log)
	}
	in := p.Repeats[0].Interference
	if in == nil || in.Server == nil || *in.Server < 30 || in.Expected == nil || !strings.Contains(p.Repeats[0].Reason, "other work took") {
		t.Errorf("the disturbed attempt records %s, %q; want its interference (about 60 %% less the generator's), what was expected and why", attemptsJSON(p), p.Repeats[0].Reason)
	}
	// The re-measure was taken right after, before each's turn in sweep 1.
	q := attemptsAt(t, res, "each", 2)
	if p.Repeats[1].Seq != p.Repeats[0].Seq+1 || q.Repeats[0].Seq != p.Repeats[1].Seq+1 {
		t.Errorf("seqs: all %d, %d, each %d; want the re-measure at once, in its sweep", p.Repeats[0].Seq, p.Repeats[1].Seq, q.Repeats[0].Seq)
	}
	if n := p.Summary.Total["throughput"].N; n != 2 || len(p.Used()) != 2 {
		t.Errorf("all at 2 clients: throughput over %d repeats; want the 2 undisturbed", n)
	}
	for _, c := range res.Claims {
		if c.Outcome != live.Reproduced {
			t.Errorf("claim %s: %s (%s); want reproduced on the clean attempts", c.ID, c.Outcome, c.Reason)
		}
	}
	if k := res.Claims[1].Checks[0]; !k.Paired || !strings.Contains(k.Text, "paired by repeat") {
		t.Errorf("check %q: want it decided pair by pair over the used repeats", k.Text)
	}
	if d := res.Disturbance; d.Remeasured != 1 || d.ExtraSeconds <= 0 || d.Interference != "server interference" || d.Baseline == nil || d.Baseline.Source != measure.FromSteps {
		t.Errorf("disturbance %+v; want one re-measure, its time, the reading's name and a baseline of steps", d)
	}
	checkRemeasuredReport(t, out, "all at 2 clients")
}

// TestPermanentDisturbanceNotMeasured disturbs every step after the first
// for good: the points measured after it end "not measured: the machine
// was busy" with the count of attempts and the worst interference, within
// the file's attempts and time budget, and the JSON keeps every attempt.
func TestPermanentDisturbanceNotMeasured(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an experiment of about 8 steps")
	}
	t.Parallel() // judged on the fake board's control file alone (serverCoresOnly), whatever else runs
	control := filepath.Join(t.TempDir(), "control")
	claims := fmt.Sprintf(throughputClaim, "one", "all", 1) + fmt.Sprintf(throughputClaim, "two", "all", 2) +
		"[disturbance]\nmax_attempts = 2\nmax_extra = \"4s\"\n"
	e := disturbExperiment(t, control, []string{"all"}, "[1, 2]", 2, claims)
	log := &controlLog{on: func(line string) {
		if strings.Contains(line, "run all: repeat 1/2, 1 clients:") {
			setControl(t, control, "interference=70 steal=20")
		}
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out := t.TempDir()
	res, err := Run(ctx, e, Options{Target: disturbTarget, Out: out, Log: log, serverCoresOnly: true})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, log)
	}
	d := res.Disturbance
	planned := 4
	attempts := 0
	for _, p := range res.Runs[0].Points {
		attempts += len(p.Repeats)
		for rep := 1; rep <= 2; rep++ {
			n := 0
			for _, rp := range p.Repeats {
				if rp.Repeat == rep {
					n++
				}
			}
			if n > e.Disturbance.MaxAttempts {
				t.Errorf("%d clients, repeat %d: %d attempts; want at most max_attempts = %d", p.Clients, rep, n, e.Disturbance.MaxAttempts)
			}
		}
	}
	step := e.stepLength().Seconds()
	if attempts != planned+d.Remeasured || d.Remeasured < 1 || float64(d.Remeasured)*step > d.MaxExtraSeconds || d.ExtraSeconds > d.MaxExtraSeconds+step {
		t.Errorf("%d attempts, %d re-measures in %.1f s; want %d planned plus the re-measures, at least one, within max_extra %.0f s (the last may overrun its %.1f s plan)",
			attempts, d.Remeasured, d.ExtraSeconds, planned, d.MaxExtraSeconds, step)
	}
	two := res.Claims[1]
	if two.Outcome != live.NotMeasured || !strings.Contains(two.Reason, "the machine was busy at all at 2 clients (") ||
		!strings.Contains(two.Reason, "attempts disturbed, worst interference") {
		t.Errorf("claim two: %s: %q; want not measured: the machine was busy, with the attempts and the worst interference", two.Outcome, two.Reason)
	}
	p2 := attemptsAt(t, res, "all", 2)
	if p2.Result != nil || p2.Summary != nil || p2.Measured() {
		t.Errorf("all at 2 clients has a result or summary though every attempt was disturbed")
	}
	// 1 client was measured clean once, before the disturbance began: the
	// claim stands on that repeat and says the other was disturbed.
	one := res.Claims[0]
	if one.Outcome != live.Reproduced || !strings.Contains(one.Checks[0].Text, "[1 of 2 repeats: the others disturbed]") {
		t.Errorf("claim one: %s, %q; want reproduced on its one clean repeat, saying so", one.Outcome, one.Checks[0].Text)
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	for _, want := range []string{"not measured: the machine was busy at all at 2 clients", "could not be measured undisturbed", "| 2 * | not measured: the machine was busy |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	// Every attempt is in the JSON, and it reads back.
	var back outcome.Result
	b, _ := os.ReadFile(filepath.Join(out, "experiment.json"))
	if err := json.Unmarshal(b, &back); err != nil || len(attemptsAt(t, &back, "all", 2).Repeats) != len(p2.Repeats) {
		t.Errorf("experiment.json does not keep every attempt (%v)", err)
	}
	if runs, err := resultfile.Read(filepath.Join(out, "all", "sweep.json")); err != nil || len(runs) != 1 {
		t.Errorf("sweep.json: %d runs, %v; want the one point measured undisturbed", len(runs), err)
	}
}

// TestSteadyInterferenceIsTheBaseline runs with a process taking half the
// board's core from the start: it is the machine, nothing is disturbed.
func TestSteadyInterferenceIsTheBaseline(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an experiment of 4 steps")
	}
	t.Parallel() // judged on the fake board's control file alone (serverCoresOnly), whatever else runs
	control := filepath.Join(t.TempDir(), "control")
	setControl(t, control, "interference=50")
	e := disturbExperiment(t, control, []string{"all"}, "[1, 2]", 2, fmt.Sprintf(throughputClaim, "two", "all", 2))
	log := &controlLog{on: func(string) {}}
	res, err := Run(context.Background(), e, Options{Target: disturbTarget, Out: t.TempDir(), Log: log, serverCoresOnly: true})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, log)
	}
	for _, p := range res.Runs[0].Points {
		for _, rp := range p.Repeats {
			if rp.Dropped || rp.Interference == nil || rp.Interference.Server == nil || *rp.Interference.Server < 25 {
				t.Errorf("%d clients: %s; want every attempt used, its interference read (about 50 less the generator's)", p.Clients, attemptsJSON(p))
			}
		}
	}
	if d := res.Disturbance; d.Remeasured != 0 || d.Baseline == nil || d.Baseline.Server == nil || d.Baseline.Server.Level < 25 {
		t.Errorf("disturbance %+v; want no re-measure and a baseline level near 50", d)
	}
	if res.Claims[0].Outcome != live.Reproduced {
		t.Errorf("claim: %s (%s)", res.Claims[0].Outcome, res.Claims[0].Reason)
	}
	if report.RemeasuredText(res) != "" {
		t.Errorf("the headline speaks of re-measures: %q", report.RemeasuredText(res))
	}
}

// TestQuietSuspectRemeasured makes one repeat's CPU per request four
// times the others' with no interference: it is suspect, measured again,
// and, the re-measure agreeing with the others, dropped.
func TestQuietSuspectRemeasured(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an experiment of 4 steps")
	}
	t.Parallel() // judged on the fake board's control file alone (serverCoresOnly), whatever else runs
	control := filepath.Join(t.TempDir(), "control")
	setControl(t, control, "cpu_ms=0.5")
	// The default budget, a quarter of three steps, has no room for one.
	e := disturbExperiment(t, control, []string{"all"}, "[2]", 3, fmt.Sprintf(throughputClaim, "two", "all", 2)+"[disturbance]\nmax_extra = \"5s\"\n")
	log := &controlLog{on: func(line string) {
		switch {
		case strings.Contains(line, "repeat 2/3, 2 clients:"):
			setControl(t, control, "cpu_ms=2")
		case strings.Contains(line, "suspect:"):
			setControl(t, control, "cpu_ms=0.5")
		}
	}}
	res, err := Run(context.Background(), e, Options{Target: disturbTarget, Out: t.TempDir(), Log: log, serverCoresOnly: true})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, log)
	}
	p := attemptsAt(t, res, "all", 2)
	if len(p.Repeats) != 4 {
		t.Fatalf("%d attempts %s; want 4: three repeats and the suspect's re-measure\n%s", len(p.Repeats), attemptsJSON(p), log)
	}
	sus, again := p.Repeats[2], p.Repeats[3]
	if !sus.Suspect || !sus.Dropped || sus.Disturbed || !strings.Contains(sus.Reason, "agreed with the others") ||
		again.Dropped || again.Repeat != 3 || again.Attempt != 2 {
		t.Errorf("attempts %s; want repeat 3 suspect and dropped, its re-measure (attempt 2) used", attemptsJSON(p))
	}
	if len(p.Used()) != 3 || res.Disturbance.Remeasured != 1 {
		t.Errorf("%d used, %d re-measures; want 3 and 1", len(p.Used()), res.Disturbance.Remeasured)
	}
}

// attemptsJSON prints a point's attempts for a failure message.
func attemptsJSON(p *outcome.Point) string {
	b, _ := json.Marshal(p.Repeats)
	return string(b)
}

// reportMD reads the report.md a run wrote into out.
func reportMD(t *testing.T, out string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkRemeasuredReport checks that the report's headline counts the
// re-measures and its list names the point.
func checkRemeasuredReport(t *testing.T, out, point string) {
	t.Helper()
	md := reportMD(t, out)
	head := md[:strings.Index(md, "## Claims")]
	if !strings.Contains(head, "Other work on the machine: 1 point had a measurement disturbed or suspect and 1 re-measure taken (1 measurement disturbed") {
		t.Errorf("report.md's headline does not say what was re-measured:\n%s", head)
	}
	if !strings.Contains(md, "## Re-measured points\n\n- **"+point+"**\n  - repeat 1, attempt 1 (") || !strings.Contains(md, "interference server's cores") {
		t.Errorf("report.md does not list %s with its interference:\n%s", point, md)
	}
}

// TestCommittedClaimsDecidedAgain loads the committed experiment results:
// in every one the claims decided again from them come out as the file
// says (package report reads them for the re-measured points).
func TestCommittedClaimsDecidedAgain(t *testing.T) {
	files, _ := filepath.Glob("../../docs/reports/*/experiment.json")
	if len(files) == 0 {
		t.Fatal("no committed experiment.json under docs/reports")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var res outcome.Result
		if err := json.Unmarshal(b, &res); err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		e, err := Load(filepath.Join("../experiments", res.Name+".toml"))
		if err != nil {
			continue // a report of a file since renamed
		}
		for i, c := range claim.Evaluate(e.Claims, &res, res.Quick) {
			if i < len(res.Claims) && res.Claims[i].ID == c.ID && res.Claims[i].Outcome != c.Outcome {
				t.Errorf("%s: claim %s decided again: %s; the file says %s", f, c.ID, c.Outcome, res.Claims[i].Outcome)
			}
		}
	}
}

// TestRecalibrateWhenCPUPerRequestMoves makes the board's CPU per request
// 1.5 x what the calibration measured, right after it: the calibration is
// redone between the sweeps, on the running server, and the second sweep
// runs on its wait.
func TestRecalibrateWhenCPUPerRequestMoves(t *testing.T) {
	if testing.Short() {
		t.Skip("calibrates twice")
	}
	e, control := calibratedSim(t)
	e.Load.Repeats, e.Load.Interleave = 3, true
	// The board's CPU per request moves after the calibration (3 ms
	// against 2), then doubles for sweep 3's measurement alone (the quiet
	// kind), back to 3 ms when the runner measures once more.
	log := &controlLog{on: func(line string) {
		switch {
		case strings.HasPrefix(line, "calibrated on this machine") || strings.HasPrefix(line, "calibration did NOT reach"):
			setControl(t, control, "cpu_ms=3")
		case strings.HasPrefix(line, "run all: repeat 2/3"):
			setControl(t, control, "cpu_ms=6")
		case strings.HasPrefix(line, "run all: repeat 3/3"):
			setControl(t, control, "cpu_ms=3")
		}
	}}
	out := t.TempDir()
	res, err := Run(context.Background(), e, Options{Target: disturbTarget, Out: out, Log: log, serverCoresOnly: true})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, log)
	}
	redo := res.Recalibration
	if redo == nil || redo.Sweep != 2 || !strings.Contains(redo.Reason, "CPU per request at the calibration's point") || len(redo.Probes) < 2 {
		t.Fatalf("recalibration %+v; want one before sweep 2 saying why\n%s", redo, log)
	}
	if redo.CPUPerRequestMs < 1.3*res.Calibration.CPUPerRequestMs {
		t.Errorf("CPU per request with no wait: %.3f ms redone against %.3f; want the new 1.5 x", redo.CPUPerRequestMs, res.Calibration.CPUPerRequestMs)
	}
	p := attemptsAt(t, res, "all", 10)
	// Sweep 1 was measured on the first calibration and is left out; the
	// claims stand on the sweeps after the redone one. Sweeps 2 and 3
	// disagreed (3 and 6 ms), so repeat 1 was measured once more on the
	// redone calibration (3 ms), which made sweep 3's the suspect; its
	// re-measure (3 ms) agreed and it was dropped.
	want := []struct {
		repeat, attempt int
		dropped         bool
		reason          string
	}{{1, 1, true, "measured on the calibration before it was redone"}, {2, 1, false, ""}, {3, 1, true, "suspect"}, {1, 2, false, ""}, {3, 2, false, ""}}
	ok := len(p.Repeats) == len(want) && p.Repeats[0].Recalibrated && p.Repeats[0].Calibration == 0
	for i := 0; ok && i < len(want); i++ {
		rp, w := p.Repeats[i], want[i]
		ok = rp.Repeat == w.repeat && rp.Attempt == w.attempt && rp.Dropped == w.dropped && strings.Contains(rp.Reason, w.reason) && (i == 0 || rp.Calibration == 1)
	}
	if !ok {
		t.Errorf("repeats %s; want sweep 1 left out, repeat 1 measured again for the two that disagreed, sweep 3's suspect dropped\n%s", attemptsJSON(p), log)
	}
	if !strings.Contains(log.String(), "its two repeats read") {
		t.Errorf("log does not say why repeat 1 was measured again:\n%s", log)
	}
	if got := res.SweepsUsed(); got != 2 {
		t.Errorf("sweeps used %d; want 2", got)
	}
	if res.CalibrationMoved != "" {
		t.Errorf("calibration moved: %s; want the sweeps after the redone calibration where it put the board", res.CalibrationMoved)
	}
	if d := res.Disturbance; d.Baseline == nil || d.Baseline.Source != measure.FromCalibration || d.ExtraSeconds < redo.Seconds*0.9 {
		t.Errorf("disturbance %+v; want the redone calibration's baseline and its time counted", d)
	}
	md := reportMD(t, out)
	if !strings.Contains(md, "## Calibration redone before sweep 2\n\nWhy: the board's CPU per request") {
		t.Errorf("report.md does not show the redone calibration:\n%s", md)
	}
}

// fileLoad is a disturb.Load that sets the fake board's control file: its
// bursts are other work taking 60 % of the fake board's core.
type fileLoad struct{ path string }

func (f fileLoad) Start() error   { return os.WriteFile(f.path, []byte("interference=60"), 0o644) }
func (f fileLoad) Stop()          { os.WriteFile(f.path, nil, 0o644) }
func (f fileLoad) String() string { return "the fake board's core" }

// TestScheduledDisturbanceNeverDecides replays a disturbance on a
// schedule (package disturb: 1.2 s of every 4 s, from 3 s in) against an
// interleaved experiment: whichever steps the bursts hit, no measurement
// beyond the threshold is used, every disturbed one is kept in the JSON
// and dropped, and each claim is decided on clean repeats or not measured
// because the machine was busy.
func TestScheduledDisturbanceNeverDecides(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an experiment of 8 steps or more with a disturbance")
	}
	// Beside the other parallel tests: their generators on this one's
	// cores are other work the rule judges like any, and the checks below
	// hold whichever steps it catches.
	t.Parallel()
	control := filepath.Join(t.TempDir(), "control")
	claims := fmt.Sprintf(throughputClaim, "all-2", "all", 2) + fmt.Sprintf(throughputClaim, "each-1", "each", 1) +
		"[disturbance]\nmax_extra = \"10s\"\n"
	e := disturbExperiment(t, control, []string{"all", "each"}, "[1, 2]", 2, claims)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var bursts strings.Builder
	done := make(chan error, 1)
	go func() {
		s := disturb.Schedule{Busy: 1200 * time.Millisecond, Every: 4 * time.Second, For: 2 * time.Minute, Delay: 3 * time.Second}
		done <- disturb.Run(ctx, s, fileLoad{control}, &bursts)
	}()
	log := &controlLog{on: func(string) {}}
	res, err := Run(context.Background(), e, Options{Target: disturbTarget, Out: t.TempDir(), Log: log})
	cancel()
	<-done
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, log)
	}
	d := res.Disturbance
	disturbed := 0
	for _, r := range res.Runs {
		for _, p := range r.Points {
			for _, rp := range p.Repeats {
				in := rp.Interference
				if in == nil || in.Server == nil {
					t.Fatalf("%s at %d clients: no interference read: %s", r.Name, p.Clients, attemptsJSON(p))
				}
				// The server's cores (the bursts) or the generator's (this
				// machine's own other work, which a test cannot hold still).
				// The hypervisor's steal is judged on its own as well.
				beyond := func(v, base *float64) bool { return v != nil && base != nil && *v-*base > d.Threshold }
				over := beyond(in.Server, in.Expected) || beyond(in.Generator, in.GeneratorExpected) ||
					beyond(in.Steal, in.StealBaseline) || beyond(in.GeneratorSteal, in.GeneratorStealBaseline)
				if over != rp.Disturbed || rp.Disturbed && !rp.Dropped {
					t.Errorf("%s at %d clients: %s; want exactly those beyond the threshold disturbed and dropped", r.Name, p.Clients, attemptsJSON(&outcome.Point{Repeats: []*outcome.Repeat{rp}}))
				}
				if rp.Disturbed {
					disturbed++
				}
			}
		}
	}
	if disturbed == 0 || d.Remeasured == 0 {
		t.Errorf("%d disturbed, %d re-measures; want the bursts caught (each 1.2 s burst overlaps a measured window by 0.6 s or more)\nbursts:\n%s\nlog:\n%s", disturbed, d.Remeasured, &bursts, log)
	}
	for _, c := range res.Claims {
		if c.Outcome != live.Reproduced && !(c.Outcome == live.NotMeasured && strings.Contains(c.Reason, "the machine was busy")) {
			t.Errorf("claim %s: %s (%s); want reproduced on clean repeats or not measured, the machine busy", c.ID, c.Outcome, c.Reason)
		}
	}
}

// TestUnjudgedNote checks the note for a target that gives interference
// on a machine that did not: nothing was judged, and the report says so.
func TestUnjudgedNote(t *testing.T) {
	v := 3.0
	res := &outcome.Result{Disturbance: &outcome.Disturbance{Interference: "server interference"},
		Runs: []*outcome.Run{{Name: "a", Points: []*outcome.Point{{Clients: 1, Repeats: []*outcome.Repeat{{Seq: 1}}}}}}}
	if n := unjudgedNote(res); !strings.Contains(n, `no "server interference" reading`) {
		t.Errorf("note %q; want it to say the reading was absent and nothing judged", n)
	}
	res.Runs[0].Points[0].Repeats[0].Interference = &outcome.Interference{Server: &v}
	if n := unjudgedNote(res); n != "" {
		t.Errorf("note %q with the reading read; want none", n)
	}
	res.Disturbance.Interference = ""
	res.Runs[0].Points[0].Repeats[0].Interference = nil
	if n := unjudgedNote(res); n != "" {
		t.Errorf("note %q for a target without the reading; want none", n)
	}
}

// TestInconclusiveOnBusyPointNotMeasured: a claim left inconclusive on a
// point that lost repeats to the machine (left out as disturbed, or a
// suspect with no time to measure it again) reads "not measured: the
// machine was busy", not inconclusive; the same claim on whole points
// stays inconclusive, and one the remaining repeats decide is decided.
func TestInconclusiveOnBusyPointNotMeasured(t *testing.T) {
	newRes := func() *outcome.Result {
		return &outcome.Result{Repeats: 3, Interleave: true, Runs: []*outcome.Run{
			{Name: "a", Points: []*outcome.Point{measuredPoint(10, []float64{1100, 900, 1300}, nil, nil)}},
			{Name: "b", Points: []*outcome.Point{measuredPoint(10, []float64{1000, 820, 1180}, nil, nil)}},
			{Name: "c", Points: []*outcome.Point{measuredPoint(10, []float64{1000, 950, 1200}, nil, nil)}},
		}}
	}
	cl := func(left, right string) claim.Claim {
		return claim.Claim{ID: left + ">" + right, Checks: []claim.Check{{
			Left:  claim.Operand{Run: left, Clients: 10, Metric: "throughput", Factor: 1},
			Op:    ">",
			Right: claim.Operand{Run: right, Clients: 10, Metric: "throughput", Factor: 1},
		}}}
	}
	res := newRes()
	if got := claim.Evaluate([]claim.Claim{cl("a", "c")}, res, false)[0]; got.Outcome != live.Inconclusive {
		t.Errorf("a > c on whole points: %s; want inconclusive (pairs 1.10, 0.95, 1.08)", got.Outcome)
	}
	// Two of a's repeats disturbed: one left, no pairs, ranges overlap.
	p := res.Runs[0].Points[0]
	for _, rp := range p.Repeats[1:] {
		rp.Disturbed = true
		rp.Drop("disturbed: test")
	}
	refresh(p, loadSpec{})
	got := claim.Evaluate([]claim.Claim{cl("a", "b")}, res, false)[0]
	if got.Outcome != live.NotMeasured || !strings.Contains(got.Reason, "the machine was busy at a at 10 clients (2 of 3 repeats left out as disturbed)") {
		t.Errorf("a > b with 2 of a's 3 repeats disturbed: %s (%q); want not measured, the machine busy", got.Outcome, got.Reason)
	}
	// A suspect that stands for want of time.
	res = newRes()
	res.Runs[2].Points[0].Repeats[1].Suspect, res.Runs[2].Points[0].Repeats[1].Unresolved = true, true
	got = claim.Evaluate([]claim.Claim{cl("a", "c")}, res, false)[0]
	if got.Outcome != live.NotMeasured || !strings.Contains(got.Reason, "1 suspect repeat(s) with no time left") {
		t.Errorf("a > c with an unresolved suspect: %s (%q); want not measured", got.Outcome, got.Reason)
	}
	// Decided on what is left: not turned into "not measured".
	res = newRes()
	res.Runs[1].Points[0].Repeats[2].Drop("disturbed: test")
	refresh(res.Runs[1].Points[0], loadSpec{})
	if got := claim.Evaluate([]claim.Claim{cl("a", "b")}, res, false)[0]; got.Outcome != live.Reproduced {
		t.Errorf("a > b with one of b's repeats dropped: %s; want reproduced on the two pairs left (%s)", got.Outcome, got.Checks[0].Text)
	}
}
