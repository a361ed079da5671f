package fleetwatch

import (
	"cmp"
	"strings"

	"bbslab/loadtest/watch"
)

// coresRead reports whether the sum gives the shared cores' figures: the
// interference and own CPU must be counters in one unit, to subtract them.
func (f *Fleet) coresRead() bool {
	t := f.o.Target
	return f.o.SharedCores && t.Interference.Path != "" && t.ProcessCPU.Path != "" &&
		t.Interference.Kind == watch.Counter && t.ProcessCPU.Kind == watch.Counter &&
		cmp.Or(t.Interference.Scale, 1) == cmp.Or(t.ProcessCPU.Scale, 1)
}

// sharedCores replaces the sum's interference and steal, which count the
// cores once per replica, by the cores' own: mean (interference + CPU) less
// the replicas' CPU, and the mean steal; a figure some replica lacks goes.
func (f *Fleet) sharedCores(sum map[string]any, docs []any) {
	t := f.o.Target
	n := float64(len(docs))
	in, ok1 := sumAt(docs, t.Interference.Path)
	cpu, ok2 := sumAt(docs, t.ProcessCPU.Path)
	var v any // nil: left out
	if ok1 && ok2 {
		v = (in+cpu)/n - cpu
	}
	setPath(sum, t.Interference.Path, v)
	if t.Steal.Path != "" {
		steal, ok := sumAt(docs, t.Steal.Path)
		v = nil
		if ok {
			v = steal / n
		}
		setPath(sum, t.Steal.Path, v)
	}
}

// sumAt adds up the numbers at path in docs; false when one lacks it.
func sumAt(docs []any, path string) (float64, bool) {
	sum := 0.0
	for _, d := range docs {
		v, ok := watch.LookupNumber(d, path)
		if !ok {
			return 0, false
		}
		sum += v
	}
	return sum, len(docs) > 0
}

// setPath sets the number at a dotted path of doc; a nil v removes it.
func setPath(doc map[string]any, path string, v any) {
	keys := strings.Split(path, ".")
	for _, k := range keys[:len(keys)-1] {
		next, ok := doc[k].(map[string]any)
		if !ok {
			if v == nil {
				return
			}
			next = map[string]any{}
			doc[k] = next
		}
		doc = next
	}
	last := keys[len(keys)-1]
	if v == nil {
		delete(doc, last)
		return
	}
	doc[last] = v
}
