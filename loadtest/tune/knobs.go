package tune

import (
	"cmp"
	"fmt"
	"slices"

	"bbslab/loadtest/watch"
)

// A Knob is one knob the tuner moves; the workers and the pool come first.
type Knob struct {
	Name     string
	Min, Max int
	// AtMost names an earlier knob whose value caps this one's.
	AtMost string
	Of     func(*watch.Knobs) *int
}

// DefaultKnobs are the workers and the pool within the spec's bounds.
func (s Spec) DefaultKnobs() []Knob {
	return []Knob{
		{Name: "workers", Min: cmp.Or(s.MinWorkers, 1), Max: cmp.Or(s.MaxWorkers, 100), Of: func(k *watch.Knobs) *int { return &k.Workers }},
		{Name: "pool", Min: cmp.Or(s.MinPool, 1), Max: cmp.Or(s.MaxPool, 100), AtMost: "workers", Of: func(k *watch.Knobs) *int { return &k.Pool }},
	}
}

// knobSet is a spec's knobs with their ladders and caps (-1: none).
type knobSet []knob

type knob struct {
	Knob
	l   Ladder
	cap int
}

func newKnobSet(s Spec) (knobSet, error) {
	list := s.Knobs
	if list == nil {
		list = s.DefaultKnobs()
	}
	if len(list) < 2 || list[0].Name != "workers" || list[1].Name != "pool" {
		return nil, fmt.Errorf("%w: knobs: want workers and pool first (the diagnosis reads their waits), then any others", errSpec)
	}
	var ks knobSet
	for i, k := range list {
		kn := knob{Knob: k, l: DefaultLadder(k.Min, k.Max), cap: slices.IndexFunc(list[:i], func(o Knob) bool { return o.Name == k.AtMost })}
		switch {
		case k.Min < 1 || k.Min > k.Max || k.Of == nil:
			return nil, fmt.Errorf("%w: knob %s: bounds %d..%d: want 1 <= min <= max, and where its value is kept", errSpec, k.Name, k.Min, k.Max)
		case len(kn.l) == 0:
			return nil, fmt.Errorf("%w: knob %s: no rung of its ladder within %d..%d", errSpec, k.Name, k.Min, k.Max)
		case k.AtMost != "" && kn.cap < 0:
			return nil, fmt.Errorf("%w: knob %s: at most %q: want an earlier knob's name", errSpec, k.Name, k.AtMost)
		}
		ks = append(ks, kn)
	}
	return ks, nil
}

func (ks knobSet) get(k watch.Knobs, i int) int { return *ks[i].Of(&k) }

func (ks knobSet) with(k watch.Knobs, i, v int) watch.Knobs {
	*ks[i].Of(&k) = v
	return k
}

func (ks knobSet) outside(k watch.Knobs) string {
	for i, kn := range ks {
		if v := ks.get(k, i); v < kn.Min || v > kn.Max {
			return fmt.Sprintf("%s %d outside %d..%d", kn.Name, v, kn.Min, kn.Max)
		}
	}
	return ""
}

func (ks knobSet) capped(k watch.Knobs) watch.Knobs {
	for i, kn := range ks {
		if kn.cap >= 0 && ks.get(k, i) > ks.get(k, kn.cap) {
			k = ks.with(k, i, kn.l.below(ks.get(k, kn.cap)+1))
		}
	}
	return k
}

// shift moves knob only of k (-1: every knob) a rung down (dir < 0) or up.
func (ks knobSet) shift(k watch.Knobs, dir, only int) watch.Knobs {
	for i, kn := range ks {
		switch v := ks.get(k, i); {
		case only >= 0 && i != only:
		case dir < 0:
			k = ks.with(k, i, kn.l.below(v))
		default:
			k = ks.with(k, i, kn.l.above(v))
		}
	}
	return k
}

// shrink is every knob of k a rung down, or halved when halve.
func (ks knobSet) shrink(k watch.Knobs, halve bool) watch.Knobs {
	if !halve {
		return ks.capped(ks.shift(k, -1, -1))
	}
	for i, kn := range ks {
		k = ks.with(k, i, kn.l.atLeast((ks.get(k, i)+1)/2))
	}
	return ks.capped(k)
}

// neighbours are the settings next to k, none above its cap, checked before k is called the best.
func (ks knobSet) neighbours(k watch.Knobs) []watch.Knobs {
	cands := []watch.Knobs{ks.shrink(k, false)}
	for _, dir := range []int{-1, 1} {
		for i := range ks {
			cands = append(cands, ks.shift(k, dir, i))
		}
	}
	var out []watch.Knobs
	for _, c := range append(cands, ks.shift(k, 1, -1)) {
		if ks.capped(c) == c && c != k && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

func (ks knobSet) grid() []watch.Knobs {
	out := []watch.Knobs{{}}
	for i, kn := range ks {
		var next []watch.Knobs
		for _, k := range out {
			for _, v := range kn.l {
				next = append(next, ks.with(k, i, v))
			}
		}
		out = next
	}
	return out
}
