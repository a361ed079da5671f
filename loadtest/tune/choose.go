package tune

import (
	"fmt"
	"math"
	"slices"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/watch"
)

// A Ladder is the values a knob takes, ascending: the tuner moves from
// rung to rung, so that a move is a meaningful step whatever the size and
// the grid it walks is finite (the benchmark measures the same grid).
type Ladder []int

// DefaultLadder returns the rungs from lo to hi: every count to 6, then
// about 25 % apart (8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, ...).
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
	var out Ladder
	for _, v := range l {
		if v >= lo && v <= hi {
			out = append(out, v)
		}
	}
	return out
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

// above is the smallest rung > v, or the top rung.
func (l Ladder) above(v int) int { return l.atLeast(v + 1) }

// A Proposal is the next setting the readings point at, with why.
type Proposal struct {
	Knobs watch.Knobs
	Why   string
}

// RoomCPU is the cores' busy share a move aims at: below FullCPU, so that
// a step up lands short of full rather than past it.
var RoomCPU = 90.0

// growth is how far the CPU's room lets the concurrency grow: RoomCPU over
// the cores' busy share (2 when unknown), at least 1, at most 4.
func growth(r Readings) float64 {
	if !r.has(rCoresBusy) || r.CoresBusy <= 0 {
		return 2
	}
	return math.Max(1, math.Min(4, RoomCPU/r.CoresBusy))
}

// propose returns the setting the diagnosis d of m points at (wl, pl: the
// workers' and the pool's ladders; lower as for Diagnose; halve: no
// setting smaller in both knobs was measured, so a full CPU halves both),
// or false when it points at none: the generator, the application, or
// nothing to trim.
func propose(m *Measurement, d Diagnosis, wl, pl Ladder, lower *Measurement, halve bool) (Proposal, bool) {
	r, k := m.Readings, m.Knobs
	w, p := k.Workers, k.Pool
	f := growth(r)
	var next watch.Knobs
	var why string
	switch d.Limit {
	case Generator, Application:
		return Proposal{}, false
	case Workers:
		want := int(math.Ceil(float64(w) * math.Min(f, 1+r.WorkersQueued/float64(w))))
		w2 := wl.atLeast(max(want, w+1))
		p2 := p
		why = fmt.Sprintf("more workers (%.1f queued, CPU room x%.2f)", r.WorkersQueued, f)
		// The connections the new workers will want, at the share of
		// their time the present ones hold one: more when they would be
		// over 90 % in use.
		if need := r.PoolInUse * float64(w2) / float64(w); r.has(rPoolInUse) && need > 0.9*float64(p) {
			p2 = max(p, pl.atLeast(min(w2, int(math.Ceil(need/0.9)))))
			why += fmt.Sprintf(", and connections with them (%.1f of %d in use now, %.1f wanted)", r.PoolInUse, p, need)
		}
		next = watch.Knobs{Workers: w2, Pool: p2}
	case Pool:
		want := int(math.Ceil(float64(p) * math.Min(f, 1+r.PoolWaiting/float64(p))))
		p2 := pl.atLeast(max(want, p+1))
		next = watch.Knobs{Workers: max(w, wl.atLeast(p2)), Pool: p2}
		why = fmt.Sprintf("more connections (%.1f acquires waiting, CPU room x%.2f)", r.PoolWaiting, f)
	case TooMany:
		if p > w {
			next, why = watch.Knobs{Workers: w, Pool: pl.atLeast(w)}, "no more connections than workers"
			if next.Pool > w {
				next.Pool = pl.below(w + 1)
			}
		} else if lower != nil {
			next, why = watch.Knobs{Workers: lower.Knobs.Workers, Pool: p}, "back to fewer workers: more only made them wait for the CPU"
		}
	case Capacity:
		next, why = shrinkBoth(k, wl, pl, halve), "fewer of both: the CPU is full, find the least that keeps its throughput"
	case Load:
		w2 := wl.atLeast(int(math.Ceil(r.WorkersBusy)) + 1)
		p2 := pl.atLeast(int(math.Ceil(r.PoolInUse)) + 1)
		next, why = watch.Knobs{Workers: min(w2, w), Pool: min(p2, p, w2)}, "trim to what was used"
	}
	next.PoolMin = 0
	if next.Workers == 0 || next == (watch.Knobs{Workers: w, Pool: p}) {
		return Proposal{}, false
	}
	return Proposal{Knobs: next, Why: why}, true
}

// shrinkBoth is one rung down of both knobs (the pool kept at most the
// workers), or half of each when halve (nothing smaller measured yet: a
// setting far too large comes down in a few steps).
func shrinkBoth(k watch.Knobs, wl, pl Ladder, halve bool) watch.Knobs {
	w, p := wl.below(k.Workers), pl.below(k.Pool)
	if halve {
		w, p = wl.atLeast((k.Workers+1)/2), pl.atLeast((k.Pool+1)/2)
	}
	if p > w {
		p = pl.below(w + 1)
	}
	return watch.Knobs{Workers: w, Pool: p}
}

// neighbours are the settings next to k the tuner checks before it calls
// k the best: fewer of both, fewer workers (not below the pool), fewer
// connections, more workers (the article's workers = pool + α), and more
// of both: with the CPU full the throughput can still rise a few percent
// with more requests in flight, each taking less CPU (measured on this VM:
// docs/measurements.md, "The tuner against the full grid").
func neighbours(k watch.Knobs, wl, pl Ladder) []watch.Knobs {
	w, p := k.Workers, k.Pool
	cands := []watch.Knobs{
		{Workers: wl.below(w), Pool: min(pl.below(p), wl.below(w))},
		{Workers: wl.below(w), Pool: p},
		{Workers: w, Pool: pl.below(p)},
		{Workers: wl.above(w), Pool: p},
		{Workers: wl.above(w), Pool: pl.above(p)},
	}
	var out []watch.Knobs
	for _, c := range cands {
		if c.Pool <= c.Workers && c != (watch.Knobs{Workers: w, Pool: p}) && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// Goal is what the tuner maximises among the settings that meet the
// objectives.
type Goal string

// The goals.
const (
	// MostThroughput: the most throughput; among settings within the
	// noise of the most, the fewest workers and connections.
	MostThroughput Goal = "throughput"
	// LeastResources: the fewest workers and connections that meet the
	// objectives; among equal ones, the most throughput.
	LeastResources Goal = "resources"
)

// resources is a setting's size: workers plus connections.
func resources(k watch.Knobs) int { return k.Workers + k.Pool }

// pick chooses the best of the measured settings (at least one) for goal,
// never on a difference within the noise: among those meeting the
// objectives, for MostThroughput the fewest resources among those whose
// throughput spread reaches the highest median's and that no other beats
// beyond the noise (a wide spread at the top must not let a setting in
// that another setting beats: ties are not chained), for LeastResources the
// fewest resources; when none meets them, the same among those closest to
// them (the failing objectives' values as a share of their limits: miss;
// within the closest's spread).
func pick(ms []*Measurement, goal Goal, objs []loadtest.Objective) *Measurement {
	var met []*Measurement
	for _, m := range ms {
		if m.Met {
			met = append(met, m)
		}
	}
	if len(met) == 0 {
		// None met: the closest, and each whose miss at its best repeat
		// reaches the closest's at its worst (or within 5 % of its
		// median). A p99 moves more than that from one repeat to the next
		// (docs/measurements.md, T42), so a closeness within it decides
		// nothing: the throughput decides among them, as among those
		// that meet.
		closest := slices.MinFunc(ms, func(a, b *Measurement) int { return cmpFloat(miss(a, objs, atMedian), miss(b, objs, atMedian)) })
		reach := math.Max(miss(closest, objs, atWorst), 1.05*miss(closest, objs, atMedian))
		for _, m := range ms {
			if miss(m, objs, atBest) <= reach {
				met = append(met, m)
			}
		}
	}
	if goal == LeastResources {
		slices.SortStableFunc(met, func(a, b *Measurement) int {
			if c := resources(a.Knobs) - resources(b.Knobs); c != 0 {
				return c
			}
			return cmpFloat(b.Throughput.Median, a.Throughput.Median)
		})
		return met[0]
	}
	top := slices.MaxFunc(met, func(a, b *Measurement) int { return cmpFloat(a.Throughput.Median, b.Throughput.Median) })
	var tied []*Measurement
	for _, m := range met {
		beaten := slices.ContainsFunc(met, func(x *Measurement) bool { return more(x, m) })
		if m.band().Max >= top.band().Min && !beaten {
			tied = append(tied, m)
		}
	}
	return slices.MinFunc(tied, func(a, b *Measurement) int {
		if c := resources(a.Knobs) - resources(b.Knobs); c != 0 {
			return c
		}
		return cmpFloat(b.Throughput.Median, a.Throughput.Median)
	})
}

// An end is the value of an objective's spread that miss reads: the
// median, or the repeat most (atBest) or least (atWorst) favourable to
// the objective. A spread of no repeats (N 0) is its median.
type end int

const (
	atMedian end = iota
	atBest
	atWorst
)

// miss is how far m is from its objectives: the sum over the failing ones
// (failing by their medians) of the value's ratio to the limit, the value
// read at e (0 when all are met).
func miss(m *Measurement, objs []loadtest.Objective, e end) float64 {
	sum := 0.0
	for i, v := range m.Objectives {
		if v.Pass || i >= len(objs) {
			continue
		}
		lim := objs[i].Limit
		if objs[i].Quantile > 0 || objs[i].Metric == "mean" || objs[i].Metric == "max" {
			lim = ms(time.Duration(lim))
		}
		val := v.Value.Median
		if v.Value.N > 0 && e != atMedian {
			good, bad := v.Value.Min, v.Value.Max
			if !objs[i].Less {
				good, bad = bad, good
			}
			val = good
			if e == atWorst {
				val = bad
			}
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

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
