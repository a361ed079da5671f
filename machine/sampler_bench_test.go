package machine

import (
	"os"
	"testing"
)

// BenchmarkSample compares one sample and one Read (what /admin/stats
// costs the board once a second, plus a poll) via /proc and via gopsutil
// on this machine; docs/measurements.md has the figures.
func BenchmarkSample(b *testing.B) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		b.Skip("no /proc/stat: not Linux")
	}
	for _, bc := range []struct {
		name string
		p    platform
	}{{"proc", procRoot("/proc")}, {"proc-no-paging", noPaging{procRoot("/proc")}}, {"gopsutil", gopsutilPlatform{}}} {
		b.Run(bc.name, func(b *testing.B) {
			s := newSampler(bc.p)
			b.ReportAllocs()
			for b.Loop() {
				s.Sample()
				if r := s.Read(); !r.Available {
					b.Fatalf("Read() = %+v", r)
				}
			}
		})
	}
}

// noPaging is /proc without /proc/vmstat, which gopsutil does not read:
// the same parts as gopsutilPlatform on Linux.
type noPaging struct{ procRoot }

func (noPaging) paging() (map[string]uint64, error) { return nil, errUnavailable }
