package tune

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"bbslab/loadtest"
	"bbslab/loadtest/watch"
)

// A Ladder is the values a knob takes, ascending.
type Ladder []int

// DefaultLadder returns the rungs from lo to hi: every count to 6, then about 25 % apart.
func DefaultLadder(lo, hi int) Ladder {
	var l Ladder
	for v := 1; v <= 6; v++ {
		l = append(l, v)
	}
	for dec := 1; dec <= 100_000; dec *= 10 {
		for _, m := range []int{8, 10, 12, 15, 20, 25, 30, 40, 50, 60} {
			if v := m * dec; v > l[len(l)-1] {
				l = append(l, v)
			}
		}
	}
	return slices.DeleteFunc(l, func(v int) bool { return v < lo || v > hi })
}

// atLeast is the smallest rung >= v, or the top rung when v is above it.
func (l Ladder) atLeast(v int) int {
	for _, r := range l {
		if r >= v {
			return r
		}
	}
	return l[len(l)-1]
}

// below is the largest rung < v, or the bottom rung.
func (l Ladder) below(v int) int {
	out := l[0]
	for _, r := range l {
		if r < v {
			out = r
		}
	}
	return out
}

func (l Ladder) above(v int) int { return l.atLeast(v + 1) }

// A Proposal is the next setting the readings point at, with why.
type Proposal struct {
	Knobs watch.Knobs
	Why   string
}

// growth is how far the CPU's room lets the concurrency grow (2 unknown).
func (th Thresholds) growth(r Readings) float64 {
	if !r.has(rCoresBusy) || r.CoresBusy <= 0 {
		return 2
	}
	return math.Max(1, math.Min(4, th.RoomCPU/r.CoresBusy))
}

// propose returns the setting the diagnosis d of m points at, or false.
func (t *tuner) propose(m *Measurement, d Diagnosis, lower *Measurement, halve bool) (Proposal, bool) {
	r, k, ks := m.Readings, m.Knobs, t.knobs
	w, p := k.Workers, k.Pool
	wl, pl := ks[0].l, ks[1].l
	f := t.spec.growth(r)
	next := k
	var why string
	switch d.Limit {
	case Generator, Application:
		return Proposal{}, false
	case Workers:
		want := int(math.Ceil(float64(w) * math.Min(f, 1+r.WorkersQueued/float64(w))))
		next.Workers = wl.atLeast(max(want, w+1))
		why = fmt.Sprintf("more workers (%.1f queued, CPU room x%.2f)", r.WorkersQueued, f)
		if need := r.PoolInUse * float64(next.Workers) / float64(w); r.has(rPoolInUse) && need > 0.9*float64(p) {
			next.Pool = max(p, pl.atLeast(min(next.Workers, int(math.Ceil(need/0.9)))))
			why += fmt.Sprintf(", and connections with them (%.1f of %d in use now, %.1f wanted)", r.PoolInUse, p, need)
		}
	case Pool:
		want := int(math.Ceil(float64(p) * math.Min(f, 1+r.PoolWaiting/float64(p))))
		next.Pool = pl.atLeast(max(want, p+1))
		next.Workers = max(w, wl.atLeast(next.Pool))
		why = fmt.Sprintf("more connections (%.1f acquires waiting, CPU room x%.2f)", r.PoolWaiting, f)
	case TooMany:
		if p > w {
			why = "no more connections than workers"
		} else if lower != nil {
			next.Workers, why = lower.Knobs.Workers, "back to fewer workers: more only made them wait for the CPU"
		}
	case Capacity:
		next, why = ks.shrink(k, halve), "fewer of every knob: the CPU is full, find the least that keeps its throughput"
	case Load:
		w2 := wl.atLeast(int(math.Ceil(r.WorkersBusy)) + 1)
		next.Workers, next.Pool = min(w2, w), min(pl.atLeast(int(math.Ceil(r.PoolInUse))+1), p)
		why = "trim to what was used"
	}
	next = ks.capped(next)
	if why == "" || next == k {
		return Proposal{}, false
	}
	return Proposal{Knobs: next, Why: why}, true
}

// Goal is what is best among the settings that meet the objectives.
type Goal string

// The goals.
const (
	MostThroughput Goal = "throughput"
	LeastResources Goal = "resources"
)

func resources(k watch.Knobs) int { return k.Workers + k.Pool }

// pick chooses the best of ms for goal among those meeting the objectives (none: those
// about as close as the closest), never on a difference within the noise; ties are not chained.
func pick(ms []*Measurement, goal Goal, objs []loadtest.Objective) *Measurement {
	var met []*Measurement
	for _, m := range ms {
		if m.Met {
			met = append(met, m)
		}
	}
	if len(met) == 0 {
		closest := slices.MinFunc(ms, func(a, b *Measurement) int { return cmp.Compare(miss(a, objs, atMedian), miss(b, objs, atMedian)) })
		for _, m := range ms {
			if miss(m, objs, atBest) <= reach(closest, objs) {
				met = append(met, m)
			}
		}
	}
	fewest := func(a, b *Measurement) int {
		if c := resources(a.Knobs) - resources(b.Knobs); c != 0 {
			return c
		}
		return cmp.Compare(b.Throughput.Median, a.Throughput.Median)
	}
	if goal == LeastResources {
		return slices.MinFunc(met, fewest)
	}
	top := slices.MaxFunc(met, func(a, b *Measurement) int { return cmp.Compare(a.Throughput.Median, b.Throughput.Median) })
	var tied []*Measurement
	for _, m := range met {
		beaten := slices.ContainsFunc(met, func(x *Measurement) bool { return more(x, m) })
		if m.Band.Max >= top.Band.Min && !beaten {
			tied = append(tied, m)
		}
	}
	return slices.MinFunc(tied, fewest)
}

// An end is the value of an objective's spread that miss reads.
type end int

const (
	atMedian end = iota
	atBest
	atWorst
)

// miss sums the failing objectives' values over their limits, read at e.
func miss(m *Measurement, objs []loadtest.Objective, e end) float64 {
	sum := 0.0
	for i, v := range m.Objectives {
		if v.Pass || i >= len(objs) {
			continue
		}
		lim := limit(objs[i])
		val := v.Value.Median
		if v.Value.N > 0 && e != atMedian {
			ends := [...]float64{v.Value.Min, v.Value.Max} // the good end, then the bad
			if !objs[i].Less {
				ends[0], ends[1] = ends[1], ends[0]
			}
			val = ends[e-atBest]
		}
		switch {
		case lim <= 0:
			sum += 1
		case objs[i].Less:
			sum += val / lim
		default:
			sum += lim / math.Max(val, 1e-9)
		}
	}
	return sum
}
