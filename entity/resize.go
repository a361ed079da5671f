package entity

import (
	"context"
	"errors"
)

// A Resizable store's pool can change its sizes while the store runs, as
// the admin listener's /admin/knobs does for a tuner.
type Resizable interface {
	// Resize sets the pool to keep min connections open and hand out at
	// most max (1 <= min <= max). New connections are opened and checked
	// before any Acquire may take them; when that fails nothing changes.
	// When the pool shrinks, idle connections above max are closed at once
	// and those in use when they are released (PoolStats.Draining counts
	// them meanwhile), so that no Acquire fails. PoolStats.Settled says
	// when the pool came within its new sizes. It returns an error wrapping
	// ErrNotResizable when this pool's sizes cannot change while it runs.
	Resize(ctx context.Context, min, max int) error
}

// ErrNotResizable means a pool's sizes cannot change while the store runs
// (pool_mode "none"): restart the board with the new sizes instead.
var ErrNotResizable = errors.New("the pool's size cannot change while the store runs")
