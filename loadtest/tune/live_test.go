package tune

import (
	"context"
	"testing"
	"time"

	"bbslab/loadtest/live"
	"bbslab/loadtest/live/feed"
	"bbslab/loadtest/watch"
)

// TestFeed tunes the model with Options.Feed on a hub: the load gains the
// feed's observer, the watcher its OnRead, and each step reaches the page
// as a point of the path named for the start, the step it stands at
// counted from 1.
func TestFeed(t *testing.T) {
	f := newModel(kn(5, 5), 1, 4*time.Millisecond, time.Millisecond)
	spec := f.spec(kn(5, 5), 4, "p99<60ms")
	hub := live.New()
	var opt Options
	opt.Feed(feed.New(hub, "loadtest tune"), &spec)
	if len(spec.Load.Observers) != 1 || opt.OnStep == nil || opt.Watch == nil {
		t.Fatalf("Feed gave %d observers, OnStep %v, Watch %v; want the feed's observer and both hooks", len(spec.Load.Observers), opt.OnStep != nil, opt.Watch != nil)
	}
	var wo watch.Options
	if opt.Watch(&wo); wo.OnRead == nil {
		t.Errorf("Watch left OnRead unset; want the feed's")
	}
	res, err := Run(context.Background(), spec, fakeTarget(), f.opt(opt))
	if err != nil {
		t.Fatal(err)
	}
	frames, err := hub.Frames()
	if err != nil {
		t.Fatal(err)
	}
	var points []*live.TunePoint
	for _, fr := range frames {
		if fr.Tune != nil {
			points = append(points, fr.Tune)
			if fr.Progress.Run != "from 5/5" || fr.Progress.Step != fr.Tune.N {
				t.Errorf("step %d's frame stands at %q step %d; want from 5/5 step %d", fr.Tune.N, fr.Progress.Run, fr.Progress.Step, fr.Tune.N)
			}
		}
	}
	if len(points) != len(res.Steps) || len(points) == 0 || points[0].Path != "from 5/5" || points[0].Workers != 5 || points[0].Pool != 5 {
		t.Errorf("points %+v; want one per step (%d) on the path from 5/5, the first at 5/5", points, len(res.Steps))
	}
}
