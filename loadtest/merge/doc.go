// Package merge combines the results of one run made by several generator
// machines at the same time into one result, as "loadtest merge" does
// (Run: from the files to the printed summary and the merged file):
//
//	m, err := merge.Results([]*loadtest.Result{gen1, gen2}, merge.Options{Now: time.Now()})
//	merge.WriteOverlap(os.Stdout, m.Overlap, []string{"gen1.json", "gen2.json"}, time.Now())
//
// Counts add up and histograms merge exactly; the per-second rows line up
// by their offset from each run's start, the same instant when the
// generators were given one loadtest.Settings.StartAt (docs/generators.md).
// How the generators' measured windows lined up is the merged result's
// Overlap: windows that do not overlap at all are refused (ErrDisjoint)
// unless Options.AllowDisjoint, and skews above the larger of SkewFloor
// and SkewShare of the window are warned of.
package merge
