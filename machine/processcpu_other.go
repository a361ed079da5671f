//go:build !linux

package machine

import (
	"context"
	"fmt"
	"time"

	"github.com/shirou/gopsutil/v4/process"
)

func processCPUOf(pid int) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), gopsutilTimeout)
	defer cancel()
	p, err := process.NewProcessWithContext(ctx, int32(pid))
	if err != nil {
		return 0, fmt.Errorf("process %d: %w", pid, err)
	}
	t, err := p.TimesWithContext(ctx)
	if err != nil {
		return 0, fmt.Errorf("process %d CPU times: %w", pid, err)
	}
	return time.Duration((t.User + t.System) * float64(time.Second)), nil
}
