package measure

import (
	"context"
	"fmt"
)

// Rounds is the side-by-side runner: it measures n settings once each per
// round, for rounds rounds, and returns each setting's measurements in
// round order (out[side][round]). Settings measured within seconds of
// each other share the machine's moment, so a comparison round by round
// (Ratios) cancels what the machine did between rounds. Each round starts
// one setting further on (round r starts with setting r mod n), so that
// no setting is always the one measured first after the others.
func Rounds[T any](ctx context.Context, rounds, n int, measure func(ctx context.Context, round, side int) (T, error)) ([][]T, error) {
	if rounds < 1 || n < 1 {
		return nil, fmt.Errorf("side by side: %d rounds of %d settings: want at least one of each", rounds, n)
	}
	out := make([][]T, n)
	for r := range rounds {
		for k := range n {
			side := (r + k) % n
			if err := ctx.Err(); err != nil {
				return out, err
			}
			v, err := measure(ctx, r, side)
			if err != nil {
				return out, fmt.Errorf("side by side: round %d, setting %d: %w", r+1, side+1, err)
			}
			out[side] = append(out[side], v)
		}
	}
	return out, nil
}
