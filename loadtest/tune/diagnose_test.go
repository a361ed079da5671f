package tune

import (
	"strings"
	"testing"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/watch"
)

// reading builds a synthetic measurement of k: mean latency meanMs,
// throughput t ± 2 % (its band too), the readings r (the machine half
// idle unless r says otherwise).
func reading(k watch.Knobs, meanMs, t float64, r Readings) *Measurement {
	if r.MachineIdle == 0 {
		r.MachineIdle = 50
	}
	s := loadtest.Spread{Median: t, Min: t * 0.98, Max: t * 1.02, N: 3}
	return &Measurement{Knobs: k, MeanMs: meanMs, Throughput: s, Band: s, Readings: r, Met: true}
}

func kn(w, p int) watch.Knobs { return watch.Knobs{Workers: w, Pool: p} }

// defaults are the thresholds' defaults.
var defaults = func() Thresholds {
	var th Thresholds
	if err := th.fill(); err != nil {
		panic(err)
	}
	return th
}()

func TestDiagnose(t *testing.T) {
	lowerCPU := reading(kn(10, 10), 5, 3000, Readings{CPUWaitMs: 0.1, CoresBusy: 80})
	for _, tt := range []struct {
		name  string
		m     *Measurement
		lower *Measurement
		want  Limit
		says  []string
	}{
		{"generator full", reading(kn(5, 5), 5, 1000, Readings{GeneratorCPU: 92, CoresBusy: 99}), nil, Generator, []string{"92%", "invalid"}},
		{"cores full", reading(kn(10, 10), 5, 3800, Readings{CoresBusy: 96, WorkerWaitMs: 2}), nil, Capacity, []string{"96%", "no knob"}},
		{"machine full", reading(kn(10, 10), 5, 3800, Readings{CoresBusy: 70, MachineIdle: 4}), nil, Capacity, []string{"4% idle"}},
		{"cores full at N+1", reading(kn(10, 10), 20, 900, Readings{CoresBusy: 97, Work: "Cmd", Queries: 30}), nil, Application, []string{"Cmd", "30.0 queries", "N+1"}},
		{"N+1, the database dominating", reading(kn(5, 5), 40, 400, Readings{CoresBusy: 40, Work: "Cmd", Queries: 30, DatabaseMs: 25, PoolWaitMs: 10, PoolWaiting: 4}), nil, Application,
			[]string{"30.0 queries", "25.00 ms of the 30.00 ms"}},
		// The board's OnceGetView at 5/5 (docs/measurements.md, "The
		// tuner on this VM"): the mean latency less the worker wait
		// overstates the time held; the busy workers over the throughput
		// give it.
		{"N+1 behind a worker queue", reading(kn(5, 5), 535, 48, Readings{CoresBusy: 65, Work: "OnceGetView", Queries: 23.7, DatabaseMs: 103.3, WorkerWaitMs: 308, WorkersQueued: 14.9, WorkersBusy: 5}), nil, Application,
			[]string{"103.30 ms of the 104.17 ms"}},
		{"many queries, the database not dominating", reading(kn(5, 5), 10, 400, Readings{CoresBusy: 40, Work: "Cmd", Queries: 30, DatabaseMs: 2, WorkerWaitMs: 5, WorkersQueued: 10}), nil, Workers, nil},
		{"one query, the database dominating", reading(kn(5, 5), 10, 1500, Readings{CoresBusy: 60, Work: "Cmd", Queries: 1, DatabaseMs: 4, WorkerWaitMs: 5, WorkersQueued: 15, WorkersBusy: 5}), nil, Workers,
			[]string{"5.00 ms for a worker", "15.0 queued", "cores 60% busy"}},
		{"a connection wait", reading(kn(20, 5), 10, 1500, Readings{CoresBusy: 50, PoolWaitMs: 4, PoolWaiting: 12, PoolInUse: 5}), nil, Pool, []string{"4.00 ms for a connection", "12.0 acquires"}},
		{"both waits: the pool first", reading(kn(20, 5), 10, 1500, Readings{CoresBusy: 50, PoolWaitMs: 4, WorkerWaitMs: 3}), nil, Pool, []string{"workers held waiting for connections"}},
		{"a wait below a tenth of the latency", reading(kn(10, 10), 10, 1500, Readings{CoresBusy: 50, WorkerWaitMs: 0.5, WorkersBusy: 4, PoolInUse: 3}), nil, Load, []string{"nothing waited", "4.0 of 10 workers"}},
		{"more connections than workers", reading(kn(20, 40), 5, 3800, Readings{CoresBusy: 80, PoolInUse: 12}), nil, TooMany, []string{"40 connections for 20 workers"}},
		{"CPU wait grown for nothing", reading(kn(20, 10), 5, 3000, Readings{CoresBusy: 85, CPUWaitMs: 0.4}), lowerCPU, TooMany, []string{"0.10 ms per request at 10 workers to 0.40 ms at 20"}},
		{"CPU wait grown with throughput", reading(kn(20, 10), 5, 3500, Readings{CoresBusy: 85, CPUWaitMs: 0.4}), lowerCPU, Load, nil},
		{"no cores reading", reading(kn(5, 5), 10, 1500, Readings{WorkerWaitMs: 5, Absent: []string{rCoresBusy, rMachineIdle}}), nil, Workers, nil},
		{"an absent wait is no wait", reading(kn(5, 5), 10, 1500, Readings{WorkerWaitMs: 5, Absent: []string{rWorkerWait}}), nil, Load, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := defaults.Diagnose(tt.m, tt.lower)
			if d.Limit != tt.want {
				t.Fatalf("Diagnose = %s (%s); want %s", d.Limit, d.Evidence, tt.want)
			}
			for _, s := range tt.says {
				if !strings.Contains(d.Evidence, s) {
					t.Errorf("evidence %q lacks %q", d.Evidence, s)
				}
			}
		})
	}
}

func TestPropose(t *testing.T) {
	ks, err := newKnobSet(Spec{})
	if err != nil {
		t.Fatal(err)
	}
	tn := &tuner{spec: Spec{Thresholds: defaults}, knobs: ks}
	lower := reading(kn(10, 10), 5, 3000, nil_())
	for _, tt := range []struct {
		name  string
		m     *Measurement
		lower *Measurement
		want  watch.Knobs
		none  bool
	}{
		// CPU at 60 %: room for x1.5 (90/60), less than the queue's x4:
		// 5 -> 8 workers, and the pool with them (all 5 in use).
		{"workers with the pool all in use", reading(kn(5, 5), 11, 1500, Readings{CoresBusy: 60, WorkerWaitMs: 5, WorkersQueued: 15, WorkersBusy: 5, PoolInUse: 5}), nil, kn(8, 8), false},
		{"workers, connections idle", reading(kn(5, 5), 11, 1500, Readings{CoresBusy: 60, WorkerWaitMs: 5, WorkersQueued: 15, WorkersBusy: 5, PoolInUse: 2}), nil, kn(8, 5), false},
		// The queue is short: 1 + 1/5 beats the CPU's room.
		{"workers by the queue", reading(kn(5, 5), 11, 1500, Readings{CoresBusy: 30, WorkerWaitMs: 5, WorkersQueued: 1, PoolInUse: 2}), nil, kn(6, 5), false},
		{"the pool, CPU at 45 %", reading(kn(20, 5), 11, 1500, Readings{CoresBusy: 45, PoolWaitMs: 4, PoolWaiting: 15, PoolInUse: 5}), nil, kn(20, 10), false},
		{"the pool past the workers brings them along", reading(kn(8, 8), 11, 1500, Readings{CoresBusy: 30, PoolWaitMs: 4, PoolWaiting: 8}), nil, kn(20, 20), false},
		{"connections down to the workers", reading(kn(20, 40), 5, 3800, Readings{CoresBusy: 80, PoolInUse: 12}), nil, kn(20, 20), false},
		{"back to fewer workers", reading(kn(20, 10), 5, 3000, Readings{CoresBusy: 85, CPUWaitMs: 0.4}), lower, kn(10, 10), false},
		{"capacity, nothing smaller measured: halve", reading(kn(40, 40), 5, 3800, Readings{CoresBusy: 97}), nil, kn(20, 20), false},
		{"capacity, a smaller one measured: a rung down", reading(kn(40, 40), 5, 3800, Readings{CoresBusy: 97}), lower, kn(30, 30), false},
		{"the load: trim to what is used", reading(kn(10, 10), 3, 1000, Readings{CoresBusy: 30, WorkersBusy: 3.2, PoolInUse: 2.1}), nil, kn(5, 4), false},
		{"the load, all used: nothing to trim", reading(kn(3, 3), 3, 1000, Readings{CoresBusy: 30, WorkersBusy: 2.9, PoolInUse: 2.9}), nil, watch.Knobs{}, true},
		{"the generator", reading(kn(5, 5), 5, 1000, Readings{GeneratorCPU: 95}), nil, watch.Knobs{}, true},
		{"the application", reading(kn(5, 5), 40, 400, Readings{Work: "Cmd", Queries: 30, DatabaseMs: 30}), nil, watch.Knobs{}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := defaults.Diagnose(tt.m, tt.lower)
			p, ok := tn.propose(tt.m, d, tt.lower, tt.lower == nil)
			if ok == tt.none {
				t.Fatalf("propose after %s = %v, %v; want a proposal: %v", d.Limit, p, ok, !tt.none)
			}
			if ok && p.Knobs != tt.want {
				t.Errorf("propose after %s (%s) = %s (%s); want %s", d.Limit, d.Evidence, short(p.Knobs), p.Why, short(tt.want))
			}
		})
	}
}

func nil_() Readings { return Readings{CPUWaitMs: 0.1, CoresBusy: 80} }

func TestDefaultLadder(t *testing.T) {
	l := DefaultLadder(1, 40)
	want := Ladder{1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40}
	if len(l) != len(want) {
		t.Fatalf("DefaultLadder(1, 40) = %v; want %v", l, want)
	}
	for i := range l {
		if l[i] != want[i] {
			t.Fatalf("DefaultLadder(1, 40) = %v; want %v", l, want)
		}
	}
	if l.atLeast(7) != 8 || l.below(8) != 6 || l.above(8) != 10 || l.atLeast(99) != 40 || l.below(1) != 1 {
		t.Errorf("rungs: atLeast(7) %d, below(8) %d, above(8) %d, atLeast(99) %d, below(1) %d; want 8, 6, 10, 40, 1",
			l.atLeast(7), l.below(8), l.above(8), l.atLeast(99), l.below(1))
	}
	if got := DefaultLadder(3, 12); got[0] != 3 || got[len(got)-1] != 12 {
		t.Errorf("DefaultLadder(3, 12) = %v; want 3 .. 12", got)
	}
}

func TestPick(t *testing.T) {
	objs, _ := loadtest.ParseSLO("p99<10ms")
	met := func(k watch.Knobs, tput, spread float64) *Measurement {
		s := loadtest.Spread{Median: tput, Min: tput - spread, Max: tput + spread}
		return &Measurement{Knobs: k, Met: true, Throughput: s, Band: s,
			Objectives: []Verdict{{Objective: "p99<10ms", Value: loadtest.Spread{Median: 8}, Pass: true}}}
	}
	ranged := func(k watch.Knobs, tput, lo, hi float64) *Measurement {
		m := met(k, tput, 0)
		m.Throughput.Min, m.Throughput.Max = lo, hi
		m.Band = m.Throughput
		return m
	}
	missed := func(k watch.Knobs, tput, p99 float64) *Measurement {
		s := loadtest.Spread{Median: tput, Min: tput, Max: tput}
		return &Measurement{Knobs: k, Throughput: s, Band: s,
			Objectives: []Verdict{{Objective: "p99<10ms", Value: loadtest.Spread{Median: p99}}}}
	}
	// spread gives m's p99 repeats from lo to hi.
	spread := func(m *Measurement, lo, hi float64) *Measurement {
		v := &m.Objectives[0].Value
		v.Min, v.Max, v.N = lo, hi, 3
		return m
	}
	for _, tt := range []struct {
		name string
		ms   []*Measurement
		goal Goal
		want watch.Knobs
	}{
		{"within the noise: fewer resources", []*Measurement{met(kn(10, 10), 3800, 100), met(kn(8, 8), 3750, 100)}, MostThroughput, kn(8, 8)},
		{"beyond the noise: more throughput", []*Measurement{met(kn(10, 10), 3800, 20), met(kn(8, 8), 3600, 20)}, MostThroughput, kn(10, 10)},
		// 6/6 is within the noise of 8/8 but not of 10/10, the top: no drift.
		{"ties only with the top", []*Measurement{met(kn(10, 10), 3800, 60), met(kn(8, 8), 3700, 60), met(kn(6, 6), 3600, 60)}, MostThroughput, kn(8, 8)},
		// The top, 20/15, is wide enough to reach 15/15, but 20/20 beats
		// 15/15 beyond the noise: 15/15 may not win through the top
		// (docs/measurements.md, "The tuner against the full grid").
		{"ties are not chained", []*Measurement{ranged(kn(15, 15), 12300, 12200, 12400), ranged(kn(20, 20), 12800, 12450, 13200), ranged(kn(20, 15), 12850, 12350, 12900)}, MostThroughput, kn(20, 15)},
		{"meeting beats missing", []*Measurement{missed(kn(40, 40), 4000, 12), met(kn(10, 10), 3000, 10)}, MostThroughput, kn(10, 10)},
		{"none met: the closest", []*Measurement{missed(kn(5, 5), 1500, 20), missed(kn(8, 8), 2500, 11)}, MostThroughput, kn(8, 8)},
		// Each p99's repeats reach the other's: the closeness is within
		// the noise, and the throughput decides (docs/measurements.md,
		// "The tuner against the full grid").
		{"none met: within the closest's spread, the most throughput", []*Measurement{spread(missed(kn(10, 10), 3600, 10.18), 9.4, 11.6), spread(missed(kn(15, 15), 4200, 12.38), 11.1, 13.5)}, MostThroughput, kn(15, 15)},
		{"none met: beyond the closest's spread, the closest", []*Measurement{spread(missed(kn(10, 10), 3600, 10.18), 9.9, 10.5), spread(missed(kn(15, 15), 4200, 12.38), 11.9, 12.8)}, MostThroughput, kn(10, 10)},
		{"least resources", []*Measurement{met(kn(10, 10), 3800, 20), met(kn(6, 6), 3000, 20), missed(kn(3, 3), 1000, 30)}, LeastResources, kn(6, 6)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := pick(tt.ms, tt.goal, objs); got.Knobs != tt.want {
				t.Errorf("pick = %s; want %s", short(got.Knobs), short(tt.want))
			}
		})
	}
}

func TestWorkersPoolRule(t *testing.T) {
	for _, tt := range []struct {
		k     watch.Knobs
		holds bool
		says  string
	}{
		{kn(12, 10), true, "12 workers = 10 connections + 2"},
		{kn(10, 10), true, "+ 0"},
		{kn(40, 10), false, "more than a few"},
		{kn(5, 8), false, "fewer workers than connections"},
	} {
		got, holds := workersPool(tt.k)
		if holds != tt.holds || !strings.Contains(got, tt.says) {
			t.Errorf("workersPool(%s) = %q, %v; want %v saying %q", short(tt.k), got, holds, tt.holds, tt.says)
		}
	}
}

// judging is a tuner under the default rules, for its disturbance and
// slow rules.
func judging() *tuner {
	tn := &tuner{target: watch.Target{Tuning: &watch.Tuning{}}, latency: latencyOf(nil)}
	tn.spec.Rules.Check("test")
	tn.judge.Rules = &tn.spec.Rules
	return tn
}

// TestDisturbed judges measurements against a quiet step before them: other
// work on the target's cores beyond the rule's threshold disturbs, the
// generator's own CPU (not pinned, on the same cores) does not, and a
// steady load the steps before read too is the machine's.
func TestDisturbed(t *testing.T) {
	quiet := []*Measurement{reading(kn(5, 5), 5, 1000, Readings{})}
	for _, tt := range []struct {
		others, generator float64
		want              bool
	}{
		{50, 0, true},     // a pinned generator: all of it is other work
		{125, 120, false}, // an unpinned generator on the server's cores: its own CPU is no disturbance
		{150, 100, true},
		{10, 0, false},
	} {
		m := reading(kn(5, 5), 5, 1000, Readings{Interference: tt.others, GeneratorShared: tt.generator})
		if d, got := judging().diagnoseDisturbance(m, quiet); got != tt.want {
			t.Errorf("interference %v, generator %v: disturbed %v (%s); want %v", tt.others, tt.generator, got, d.Evidence, tt.want)
		}
	}
	if _, got := judging().diagnoseDisturbance(reading(kn(5, 5), 5, 1000, Readings{Interference: 90, Absent: []string{rInterference}}), quiet); got {
		t.Error("an absent interference reading judged disturbed")
	}
	steady := []*Measurement{reading(kn(5, 5), 5, 1000, Readings{Interference: 60}), reading(kn(8, 8), 5, 1000, Readings{Interference: 62})}
	if d, got := judging().diagnoseDisturbance(reading(kn(10, 10), 5, 1000, Readings{Interference: 66}), steady); got {
		t.Errorf("a steady load the steps before read too: disturbed (%s)", d.Evidence)
	}
	if _, got := judging().diagnoseDisturbance(reading(kn(10, 10), 5, 1000, Readings{Interference: 90}), nil); got {
		t.Error("judged disturbed with no step before to hold it against")
	}
	// The hypervisor's steal of the generator's CPUs disturbs a
	// measurement however quiet the target's cores were.
	for _, tt := range []struct {
		others, steal float64
		absent        bool // the target gives no interference reading
		want          bool
		reading       string
	}{
		{0, 20, false, true, rGeneratorSteal},
		{0, 10, false, false, ""},
		{50, 20, false, true, rInterference}, // the target's cores named first
		{90, 20, true, true, rGeneratorSteal},
	} {
		r := Readings{Interference: tt.others, GeneratorSteal: tt.steal}
		if tt.absent {
			r.Absent = []string{rInterference}
		}
		d, got := judging().diagnoseDisturbance(reading(kn(5, 5), 5, 1000, r), quiet)
		if got != tt.want || d.Reading != tt.reading || got && !strings.Contains(d.Evidence, "%") {
			t.Errorf("interference %v, generator steal %v: disturbed %v by %q (%s); want %v by %q", tt.others, tt.steal, got, d.Reading, d.Evidence, tt.want, tt.reading)
		}
	}
}

// TestGeneratorSteal checks that a measurement reads the generator's
// steal from its runs' cost, the median over the repeats, and 0 where the
// OS does not count it.
func TestGeneratorSteal(t *testing.T) {
	run := func(steal *float64) *loadtest.Result {
		h := loadtest.NewHistogram()
		h.Record(2 * time.Millisecond)
		res := &loadtest.Result{Total: loadtest.Stats{Requests: 100, Successes: 100, Throughput: 1000, Histogram: h}}
		res.Cost.Cores = &loadtest.CoresUse{CPUs: []int{1}, Busy: 60, Interference: 40, Steal: steal}
		return res
	}
	f := func(v float64) *float64 { return &v }
	tn := judging()
	quiet := []*Measurement{tn.summarise(kn(4, 4), []*loadtest.Result{run(f(0))})}
	m := tn.summarise(kn(5, 5), []*loadtest.Result{run(f(30)), run(f(2)), run(f(25))})
	if m.Readings.GeneratorSteal != 25 {
		t.Errorf("generator steal over repeats 30, 2, 25: %v; want their median, 25", m.Readings.GeneratorSteal)
	}
	if _, ok := tn.diagnoseDisturbance(m, quiet); !ok {
		t.Error("25 % of a core stolen from the generator's CPUs: not disturbed")
	}
	m = tn.summarise(kn(5, 5), []*loadtest.Result{run(nil), run(nil), run(nil)})
	if m.Readings.GeneratorSteal != 0 {
		t.Errorf("no steal counted: generator steal %v; want 0", m.Readings.GeneratorSteal)
	}
	if d, ok := tn.diagnoseDisturbance(m, quiet); ok {
		t.Errorf("no steal counted, the generator's cores 40 %% others: disturbed (%s)", d.Evidence)
	}
}

// TestGeneratorShared checks that a pinned generator's own CPU is not
// taken out of the board's interference: under taskset runtime.NumCPU
// counts only the affinity, so the cost says whether it was pinned.
func TestGeneratorShared(t *testing.T) {
	cpu := 7.0
	for _, tt := range []struct {
		cores *loadtest.CoresUse
		want  float64
	}{
		{&loadtest.CoresUse{CPUs: []int{1}, Pinned: true}, 0},
		{&loadtest.CoresUse{CPUs: []int{0, 1}}, 7},
		{&loadtest.CoresUse{CPUs: []int{1}}, 7}, // the cost decides, not how many CPUs this process sees
		{nil, 7},
	} {
		if got := generatorShared(loadtest.Cost{CPUPercent: &cpu, Cores: tt.cores}); got != tt.want {
			t.Errorf("generatorShared(CPU 7 %%, cores %+v) = %v; want %v", tt.cores, got, tt.want)
		}
	}
	if got := generatorShared(loadtest.Cost{Cores: &loadtest.CoresUse{CPUs: []int{0, 1}}}); got != 0 {
		t.Errorf("generatorShared without the process's CPU = %v; want 0", got)
	}
}
