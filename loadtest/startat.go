package loadtest

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// StartAtPast is how far in the past Settings.StartAt may lie: a clock time
// typed to the second may be a moment old when the run reads it.
const StartAtPast = time.Second

// StartAtAhead is how far ahead Settings.StartAt may lie.
const StartAtAhead = 24 * time.Hour

// ParseStartAt reads a start time relative to now: an offset "+10s", an
// RFC 3339 time or a clock time today ("15:04:05", "15:04").
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
		c, err := time.ParseInLocation("15:04:05", in, now.Location())
		if err != nil {
			c, err = time.ParseInLocation("15:04", in, now.Location())
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

func checkStartAt(t, now time.Time) error {
	if ago := now.Sub(t); ago > StartAtPast {
		return fmt.Errorf("%s is %s in the past: want a time at most %s ago", t.Format(time.RFC3339Nano), ago.Round(time.Millisecond), StartAtPast)
	}
	if ahead := t.Sub(now); ahead > StartAtAhead {
		return fmt.Errorf("%s is %s ahead: want a time within %s", t.Format(time.RFC3339Nano), ahead.Round(time.Second), StartAtAhead)
	}
	return nil
}

// waitUntil blocks until t on the precise alarm, or returns ctx's error.
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
	}
}
