package tune

import (
	"fmt"
	"reflect"
	"strconv"

	"bbslab/loadtest/measure"
)

// A Limit is what limits a measured setting, in the article's order.
type Limit string

// The limits Diagnose names.
const (
	Generator   Limit = "generator"
	Capacity    Limit = "capacity"
	Application Limit = "application"
	Workers     Limit = "workers"
	Pool        Limit = "pool"
	TooMany     Limit = "too many"
	Load        Limit = "load"
	Disturbed   Limit = "disturbed"
	// Undecided is a step whose decision its rounds cannot settle: it is
	// measured again, its rounds pooled with the next attempt's.
	Undecided Limit = "undecided"
)

// again reports whether a step with this limit is measured again.
func (l Limit) again() bool { return l == Disturbed || l == Undecided }

// Thresholds are the diagnosis's bounds on the readings, described by each field's tags.
type Thresholds struct {
	FullCPU       float64 `toml:"full_cpu" flag:"full-cpu" default:"94" help:"the target's cores (the machine, by its idle share) count as full from this busy share (%)"`
	FullGenerator float64 `toml:"full_generator" flag:"full-generator" default:"85" help:"the generator counts as full from this share of its CPUs (%): the measurement is invalid"`
	// RoomCPU lies below FullCPU, so that a step up lands short of full.
	RoomCPU       float64 `toml:"room_cpu" flag:"room-cpu" default:"90" help:"the cores' busy share (%) a move up aims at"`
	WaitShare     float64 `toml:"wait_share" flag:"wait-share" default:"0.10" help:"a wait for a worker or a connection counts from this share of the mean latency"`
	ManyQueries   float64 `toml:"many_queries" flag:"many-queries" default:"5" help:"the application's N+1: at least this many queries per request, with the database taking -database-share of the time"`
	DatabaseShare float64 `toml:"database_share" flag:"database-share" default:"0.5" help:"the application's N+1: the database takes at least this share of the time a request holds a worker, at -many-queries"`
	CPUWaitGrowth float64 `toml:"cpu_wait_growth" flag:"cpu-wait-growth" default:"1.5" help:"too many workers: the CPU wait per request (at least 0.05 ms) grew this many times since fewer workers, for no throughput beyond the noise"`
}

// fill sets each zero threshold to its default tag and checks them.
func (th *Thresholds) fill() error {
	v := reflect.ValueOf(th).Elem()
	for i := range v.NumField() {
		f, sf := v.Field(i), v.Type().Field(i)
		if f.Float() == 0 {
			d, _ := strconv.ParseFloat(sf.Tag.Get("default"), 64)
			f.SetFloat(d)
		}
		if f.Float() < 0 {
			return fmt.Errorf("%w: %s %g: want a positive value", errSpec, sf.Tag.Get("toml"), f.Float())
		}
	}
	return nil
}

// A Diagnosis names the limit of a setting with the reading that shows it.
type Diagnosis struct {
	Limit    Limit   `json:"limit"`
	Reading  string  `json:"reading,omitempty"`
	Value    float64 `json:"value"`
	Unit     string  `json:"unit,omitempty"`
	Evidence string  `json:"evidence"`
}

// Diagnose names what limits the setting m in the article's order (lower:
// the setting with the next fewer workers, or nil). An N+1 comes before the
// waits it causes, the pool before the workers it holds.
func (th Thresholds) Diagnose(m *Measurement, lower *Measurement) Diagnosis {
	r, k := m.Readings, m.Knobs
	if r.GeneratorCPU >= th.FullGenerator {
		return Diagnosis{Limit: Generator, Reading: "generator CPU", Value: r.GeneratorCPU, Unit: "% of its CPUs",
			Evidence: fmt.Sprintf("the generator used %.0f%% of its CPUs: the measurement is invalid (give the generator its own CPU, or fewer clients)", r.GeneratorCPU)}
	}
	nPlus1 := r.Work != "" && r.has(rQueries) && r.Queries >= th.ManyQueries
	if d, ok := th.capacity(r); ok {
		if nPlus1 {
			d.Limit = Application
			d.Evidence += fmt.Sprintf("; %s runs %.1f queries per request (N+1): the work per request is the application's to change", r.Work, r.Queries)
		}
		return d
	}
	held := heldMs(m)
	if nPlus1 && r.has(rDatabase) && held > 0 && r.DatabaseMs >= th.DatabaseShare*held {
		return Diagnosis{Limit: Application, Reading: rQueries, Value: r.Queries, Unit: "queries/request",
			Evidence: fmt.Sprintf("%s runs %.1f queries per request and the database takes %.2f ms of the %.2f ms each request holds a worker: N+1, the application's to change, not a knob", r.Work, r.Queries, r.DatabaseMs, held)}
	}
	poolWaits := th.waits(r.PoolWaitMs, m.MeanMs) && r.has(rPoolWait)
	workerWaits := th.waits(r.WorkerWaitMs, m.MeanMs) && r.has(rWorkerWait)
	switch {
	case poolWaits:
		ev := fmt.Sprintf("requests waited %.2f ms for a connection (%.1f acquires waiting on average, %.1f of %d connections in use)", r.PoolWaitMs, r.PoolWaiting, r.PoolInUse, k.Pool)
		if workerWaits {
			ev += fmt.Sprintf(", and %.2f ms for a worker: workers held waiting for connections", r.WorkerWaitMs)
		}
		return Diagnosis{Limit: Pool, Reading: rPoolWait, Value: r.PoolWaitMs, Unit: "ms/request", Evidence: ev + cpuRoom(r)}
	case workerWaits:
		return Diagnosis{Limit: Workers, Reading: rWorkerWait, Value: r.WorkerWaitMs, Unit: "ms/request",
			Evidence: fmt.Sprintf("requests waited %.2f ms for a worker (%.1f queued on average, %.1f of %d workers busy)%s", r.WorkerWaitMs, r.WorkersQueued, r.WorkersBusy, k.Workers, cpuRoom(r))}
	}
	if d, ok := th.tooMany(m, lower); ok {
		return d
	}
	return Diagnosis{Limit: Load, Reading: rWorkersBusy, Value: r.WorkersBusy,
		Evidence: fmt.Sprintf("nothing waited: %.1f of %d workers busy, %.1f of %d connections in use%s: the load offered is the limit", r.WorkersBusy, k.Workers, r.PoolInUse, k.Pool, cpuRoom(r))}
}

func heldMs(m *Measurement) float64 {
	r := m.Readings
	if r.has(rWorkersBusy) && r.WorkersBusy > 0 && m.Throughput.Median > 0 {
		return 1000 * r.WorkersBusy / m.Throughput.Median
	}
	return m.MeanMs - r.WorkerWaitMs - r.PoolWaitMs
}

// diagnoseDisturbance applies the disturbance rule to m against ref, the undisturbed measurements
// before it; on the generator's side only the steal, as the rest may be the target's own CPU.
func (t *tuner) diagnoseDisturbance(m *Measurement, ref []*Measurement) (Diagnosis, bool) {
	t.judge.Baseline = &measure.Baseline{Source: measure.FromSteps}
	for _, b := range ref {
		t.judge.Baseline.Add(spans(b))
	}
	r := m.Readings
	v := t.judge.Judge(spans(m))
	if !v.Disturbed() {
		return Diagnosis{}, false
	}
	if others := max(0, r.Interference-r.GeneratorShared); v.Expected != nil && others-*v.Expected > t.spec.Rules.Threshold {
		return Diagnosis{Limit: Disturbed, Reading: rInterference, Value: others, Unit: "% of a core",
			Evidence: fmt.Sprintf("other work took %.0f%% of a core of the server's cores during the measurement (the generator's own CPU left out), %.0f more than during the steps before: its figures are not the setting's", others, others-*v.Expected)}, true
	}
	return Diagnosis{Limit: Disturbed, Reading: rGeneratorSteal, Value: r.GeneratorSteal, Unit: "% of a core",
		Evidence: fmt.Sprintf("the hypervisor took %.0f%% of a core of the generator's CPUs (steal) during the measurement, more than before: the load it offered and the latencies it read are not the setting's", r.GeneratorSteal)}, true
}

func spans(m *Measurement) (server, generator *measure.Span) {
	r := m.Readings
	if r.has(rInterference) {
		server = &measure.Span{Interference: max(0, r.Interference-r.GeneratorShared)}
	}
	return server, &measure.Span{Steal: r.GeneratorSteal, HasSteal: true}
}

func (th Thresholds) capacity(r Readings) (Diagnosis, bool) {
	switch {
	case r.has(rCoresBusy) && r.CoresBusy >= th.FullCPU:
		return Diagnosis{Limit: Capacity, Reading: rCoresBusy, Value: r.CoresBusy, Unit: "%",
			Evidence: fmt.Sprintf("the server's cores were %.0f%% busy: its CPU is the capacity; no knob adds throughput", r.CoresBusy)}, true
	case r.has(rMachineIdle) && r.MachineIdle <= 100-th.FullCPU:
		return Diagnosis{Limit: Capacity, Reading: rMachineIdle, Value: r.MachineIdle, Unit: "%",
			Evidence: fmt.Sprintf("the machine was %.0f%% idle: its CPUs are the capacity; no knob adds throughput", r.MachineIdle)}, true
	}
	return Diagnosis{}, false
}

// tooMany names more connections than workers, or CPU wait grown since lower for no more throughput.
func (th Thresholds) tooMany(m, lower *Measurement) (Diagnosis, bool) {
	r, k := m.Readings, m.Knobs
	if k.Pool > k.Workers {
		return Diagnosis{Limit: TooMany, Reading: rPoolInUse, Value: r.PoolInUse,
			Evidence: fmt.Sprintf("%d connections for %d workers: at most %d can be in use (%.1f were on average)", k.Pool, k.Workers, k.Workers, r.PoolInUse)}, true
	}
	if lower == nil || !r.has(rCPUWait) {
		return Diagnosis{}, false
	}
	lw := lower.Readings.CPUWaitMs
	if r.CPUWaitMs >= 0.05 && r.CPUWaitMs >= th.CPUWaitGrowth*lw && !more(m, lower) {
		return Diagnosis{Limit: TooMany, Reading: rCPUWait, Value: r.CPUWaitMs, Unit: "ms/request",
			Evidence: fmt.Sprintf("the CPU wait grew from %.2f ms per request at %d workers to %.2f ms at %d, for no throughput beyond the noise: too many workers", lw, lower.Knobs.Workers, r.CPUWaitMs, k.Workers)}, true
	}
	return Diagnosis{}, false
}

func (th Thresholds) waits(waitMs, meanMs float64) bool {
	return waitMs > 0 && meanMs > 0 && waitMs >= th.WaitShare*meanMs
}

func cpuRoom(r Readings) string {
	if !r.has(rCoresBusy) {
		return ""
	}
	return fmt.Sprintf(", cores %.0f%% busy", r.CoresBusy)
}

// more reports whether a has more throughput than b beyond the noise.
func more(a, b *Measurement) bool { return measure.Beyond(a.Band, b.Band) }
