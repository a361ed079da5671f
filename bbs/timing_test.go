package bbs

import (
	"fmt"
	"testing"
	"time"

	"bbslab/commands"
)

// TestServerTimingFormat checks the Server-Timing header against the
// format it has always had (fmt's %.3f of milliseconds), for durations
// that round up, carry, are zero, huge or negative.
func TestServerTimingFormat(t *testing.T) {
	f := func(d time.Duration) string { return fmt.Sprintf("%.3f", float64(d)/1e6) }
	ds := []time.Duration{0, 1, 499, 500, 999_500, 1_234_567, 45 * time.Microsecond, 20 * time.Second, 1<<63 - 1, -1_500_000, 3*time.Hour + 7}
	for i, q := range ds {
		c := cost{Tally: commands.Tally{AcquireWait: ds[(i+1)%len(ds)], SQLTime: ds[(i+2)%len(ds)], NetworkWait: ds[(i+3)%len(ds)]}, QueueWait: q, Total: ds[(i+4)%len(ds)]}
		want := "queue;dur=" + f(c.QueueWait) + ", acquire;dur=" + f(c.AcquireWait) + ", db;dur=" + f(c.SQLTime) + ", net;dur=" + f(c.NetworkWait) + ", total;dur=" + f(c.Total)
		if got := c.serverTiming(); got != want {
			t.Errorf("%+v.serverTiming() = %q; want %q", c, got, want)
		}
	}
}

// BenchmarkServerTiming measures building the Server-Timing header.
//
//	go test -run '^$' -bench ServerTiming -benchmem ./bbs
func BenchmarkServerTiming(b *testing.B) {
	b.ReportAllocs()
	c := cost{Tally: commands.Tally{Queries: 30, Acquires: 30, AcquireWait: 12_345, SQLTime: 345_678}, QueueWait: 1_234, Total: 456_789}
	for b.Loop() {
		_ = c.serverTiming()
	}
}
