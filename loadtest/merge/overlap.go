package merge

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"bbslab/loadtest"
)

// Results warns when the generators' measured windows differ by more than
// the larger of SkewFloor and SkewShare of the merged window.
const (
	SkewFloor = 100 * time.Millisecond
	SkewShare = 0.01
)

// ErrDisjoint is the error Results wraps when the windows do not overlap.
var ErrDisjoint = errors.New("the measured windows do not overlap")

// Options change what Results accepts.
type Options struct {
	// AllowDisjoint merges windows that do not overlap, with a warning.
	AllowDisjoint bool
	// Now is the time whose date the messages' times omit (zero: none).
	Now time.Time
}

// overlapOf measures how the windows of rs line up, with a warning when
// they are skewed or disjoint or a result has none (then nil).
func overlapOf(rs []*loadtest.Result, allowDisjoint bool, now time.Time) (*loadtest.Overlap, string, error) {
	for i, r := range rs {
		if r.MeasureStart.IsZero() || r.End.IsZero() {
			return nil, fmt.Sprintf("result %d has no measured window (measure_start and end): the windows' overlap was not checked", i+1), nil
		}
	}
	byStart := func(a, b *loadtest.Result) int { return a.MeasureStart.Compare(b.MeasureStart) }
	byEnd := func(a, b *loadtest.Result) int { return a.End.Compare(b.End) }
	minStart, maxEnd := slices.MinFunc(rs, byStart).MeasureStart, slices.MaxFunc(rs, byEnd).End
	first := slices.Index(rs, slices.MinFunc(rs, byEnd))  // the earliest end
	last := slices.Index(rs, slices.MaxFunc(rs, byStart)) // the latest start
	o := &loadtest.Overlap{Start: rs[last].MeasureStart, End: rs[first].End}
	o.Seconds = loadtest.Round3(max(o.End.Sub(o.Start).Seconds(), 0))
	o.MaxStartSkewMs = ms(o.Start.Sub(minStart))
	o.MaxEndSkewMs = ms(maxEnd.Sub(o.End))
	threshold := max(SkewFloor, time.Duration(SkewShare*float64(maxEnd.Sub(minStart))))
	o.ThresholdMs = ms(threshold)
	for _, r := range rs {
		o.Generators = append(o.Generators, loadtest.WindowOffset{Name: r.Name, StartMs: ms(r.MeasureStart.Sub(o.Start)), EndMs: ms(r.End.Sub(o.End)), StartLagMs: r.StartLagMs})
	}
	if !o.End.After(o.Start) {
		err := fmt.Errorf("%w: result %d measured from %s, %.3f s after result %d's window ended at %s",
			ErrDisjoint, last+1, clockTime(o.Start, now), o.Start.Sub(o.End).Seconds(), first+1, clockTime(o.End, now))
		if !allowDisjoint {
			return nil, "", err
		}
		o.Warning = err.Error() + ": the merged throughput averages over the whole span, parts of which no generator measured"
		return o, o.Warning, nil
	}
	if skew := max(o.MaxStartSkewMs, o.MaxEndSkewMs); skew > o.ThresholdMs {
		whole := maxEnd.Sub(minStart).Seconds()
		o.Warning = fmt.Sprintf("the generators' measured windows differ by up to %.1f ms at the start and %.1f ms at the end (more than %.0f ms, the larger of %.0f ms and %.0f %% of the %.3f s merged window): they all measured together only in the common %.3f s, and the merged throughput averages over the whole %.3f s",
			o.MaxStartSkewMs, o.MaxEndSkewMs, o.ThresholdMs, ms(SkewFloor), SkewShare*100, whole, o.Seconds, whole)
	}
	return o, o.Warning, nil
}

// clockTime formats t to the millisecond, with the date unless t falls on
// now's date in t's zone.
func clockTime(t, now time.Time) string {
	if now.IsZero() || t.Format(time.DateOnly) != now.In(t.Location()).Format(time.DateOnly) {
		return t.Format("2006-01-02 15:04:05.000 MST")
	}
	return t.Format("15:04:05.000 MST")
}

// WriteOverlap prints how the merged generators' windows lined up, a line
// per generator named by names (else its result's name).
func WriteOverlap(w io.Writer, o *loadtest.Overlap, names []string, now time.Time) error {
	if o == nil {
		return nil
	}
	fmt.Fprintf(w, "windows: common %s to %s (%.3f s); start skew %.3f ms, end skew %.3f ms (warn above %.0f ms)\n",
		clockTime(o.Start, now), clockTime(o.End, now), o.Seconds, o.MaxStartSkewMs, o.MaxEndSkewMs, o.ThresholdMs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "generator\tstart ms\tend ms\tstart lag ms\t")
	for i, g := range o.Generators {
		name := g.Name
		if i < len(names) {
			name = names[i]
		}
		name = cmp.Or(name, fmt.Sprint(i+1))
		lag := "-"
		if g.StartLagMs != 0 {
			lag = fmt.Sprintf("%.3f", g.StartLagMs)
		}
		fmt.Fprintf(tw, "%s\t%+.3f\t%+.3f\t%s\t\n", name, g.StartMs, g.EndMs, lag)
	}
	return tw.Flush()
}
