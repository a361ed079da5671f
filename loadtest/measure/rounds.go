package measure

import (
	"context"
	"fmt"
)

// A Plan is a side-by-side measurement: each setting once per round.
type Plan struct {
	Rounds, Settings int
	// Rotate starts round r with setting r mod Settings.
	Rotate bool
	// Between, when set, runs after every round but the last.
	Between func(ctx context.Context, round int) error
}

// Rounds measures the plan's settings and returns out[setting][round].
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
