package measure

import (
	"context"
	"fmt"
)

// A Plan is a side-by-side measurement: Settings settings measured once
// each per round, for Rounds rounds. Settings measured within seconds of
// each other share the machine's moment, so a comparison round by round
// (Ratios) cancels what the machine did between rounds, and a burst of
// other work lands on one measurement of several settings rather than on
// every measurement of one.
type Plan struct {
	Rounds, Settings int
	// Rotate starts each round one setting further on (round r with
	// setting r mod Settings), so that no setting is always the one
	// measured first after the others; off, every round goes in the
	// settings' order (an experiment's sweep: client counts ascending).
	Rotate bool
	// Between, when set, runs after every round but the last (an
	// experiment redoes its calibration there).
	Between func(ctx context.Context, round int) error
}

// Rounds is the side-by-side runner: it measures the plan's settings in
// rounds and returns each setting's measurements in round order
// (out[setting][round]), or the first error, as measure returned it.
func Rounds[T any](ctx context.Context, p Plan, measure func(ctx context.Context, round, setting int) (T, error)) ([][]T, error) {
	n := p.Settings
	if p.Rounds < 1 || n < 1 {
		return nil, fmt.Errorf("side by side: %d rounds of %d settings: want at least one of each", p.Rounds, n)
	}
	out := make([][]T, n)
	for r := range p.Rounds {
		for k := range n {
			setting := k
			if p.Rotate {
				setting = (r + k) % n
			}
			if err := ctx.Err(); err != nil {
				return out, err
			}
			v, err := measure(ctx, r, setting)
			if err != nil {
				return out, err // the caller names the setting
			}
			out[setting] = append(out[setting], v)
		}
		if p.Between != nil && r < p.Rounds-1 {
			if err := p.Between(ctx, r); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}
