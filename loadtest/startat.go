package loadtest

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// StartAtPast is how far in the past Settings.StartAt may lie: a clock time
// typed to the second may be a moment old when the run reads it. Such a run
// starts at once and records how late it was (Result.StartLagMs).
const StartAtPast = time.Second

// StartAtAhead is how far ahead Settings.StartAt may lie: a later time is
// more likely a typing mistake than a plan.
const StartAtAhead = 24 * time.Hour

// ParseStartAt reads a start time as users type it, relative to now: an
// offset "+10s" (any Go duration after the plus), an RFC 3339 time
// ("2026-12-02T15:04:05Z", "2026-12-02T15:04:05.5+01:00") or a clock time
// today in now's time zone ("15:04:05", "15:04:05.250", "15:04"). The time
// must lie between StartAtPast before now and StartAtAhead after it.
//
// Several generators line up best on one absolute time: each process
// reads an offset from its own start, so "+10s" given to processes
// launched 20 ms apart starts them 20 ms apart.
func ParseStartAt(s string, now time.Time) (time.Time, error) {
	const forms = "want +DURATION (e.g. +10s), an RFC 3339 time (2026-12-02T15:04:05Z) or a clock time today (15:04:05)"
	in := strings.TrimSpace(s)
	var t time.Time
	switch {
	case in == "":
		return time.Time{}, fmt.Errorf("start at %q: %s", s, forms)
	case strings.HasPrefix(in, "+"):
		d, err := time.ParseDuration(in[1:])
		if err != nil || d < 0 {
			return time.Time{}, fmt.Errorf("start at %q: %s", s, forms)
		}
		t = now.Add(d)
	case strings.ContainsAny(in, "-T"): // a date
		var err error
		if t, err = time.Parse(time.RFC3339, in); err != nil {
			return time.Time{}, fmt.Errorf("start at %q: not an RFC 3339 time (%v); %s", s, err, forms)
		}
	default:
		var c time.Time
		var err error
		for _, layout := range []string{"15:04:05", "15:04"} {
			if c, err = time.ParseInLocation(layout, in, now.Location()); err == nil {
				break
			}
		}
		if err != nil {
			return time.Time{}, fmt.Errorf("start at %q: %s", s, forms)
		}
		y, m, d := now.Date()
		t = time.Date(y, m, d, c.Hour(), c.Minute(), c.Second(), c.Nanosecond(), now.Location())
		if now.Sub(t) > StartAtPast {
			return time.Time{}, fmt.Errorf("start at %q: %s today is %s ago; a clock time means today (for a later day give an RFC 3339 time)",
				s, t.Format("15:04:05"), now.Sub(t).Round(time.Millisecond))
		}
	}
	if err := checkStartAt(t, now); err != nil {
		return time.Time{}, fmt.Errorf("start at %q: %w", s, err)
	}
	return t, nil
}

// checkStartAt checks that t lies within the bounds ParseStartAt states.
func checkStartAt(t, now time.Time) error {
	if ago := now.Sub(t); ago > StartAtPast {
		return fmt.Errorf("%s is %s in the past: want a time at most %s ago", t.Format(time.RFC3339Nano), ago.Round(time.Millisecond), StartAtPast)
	}
	if ahead := t.Sub(now); ahead > StartAtAhead {
		return fmt.Errorf("%s is %s ahead: want a time within %s", t.Format(time.RFC3339Nano), ahead.Round(time.Second), StartAtAhead)
	}
	return nil
}

// waitUntil blocks until t, on the run's precise alarm (a timerfd on
// Linux, which wakes within microseconds of t). It returns ctx's error if
// ctx ends first.
func waitUntil(ctx context.Context, t time.Time) error {
	a := newAlarm()
	defer a.close()
	stop := context.AfterFunc(ctx, a.close)
	defer stop()
	for {
		d := time.Until(t)
		if d <= 0 {
			return nil
		}
		a.set(d)
		if !a.wait() {
			return ctx.Err()
		}
		// The wait may end early: check the time again.
	}
}
