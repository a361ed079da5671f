package diskbench

import (
	"fmt"
	"math"
)

// A Reference is one of the example results in Atlassian's "Test
// disk access speed for a Java application"): average nanoseconds of open,
// r/w (a write and a read), close and delete.
type Reference struct {
	Name                    string
	Source                  string // how the seed describes the machine
	Open, RW, Close, Delete int64  // average ns
}

// Cycle is the average cost of one file's life: open + r/w + close + delete.
func (r Reference) Cycle() int64 { return r.Open + r.RW + r.Close + r.Delete }

// References are the labelled examples of that article, fastest first. The article
// also shows an unlabelled example with milliseconds per open, close and
// delete (open 4,790,174 ns avg); it is slower than "bad" and grades as bad.
var References = []Reference{
	{Name: "SSD-class", Source: "premier hosting provider on SSD-equivalent disks",
		Open: 35_289, RW: 30_934, Close: 14_988, Delete: 39_135},
	{Name: "OK", Source: `example labelled "OK"`,
		Open: 75_830, RW: 46_407, Close: 5_751, Delete: 118_942},
	{Name: "average", Source: "WD Black 7.2k RPM drive running 5 Jira instances at low load",
		Open: 133_704, RW: 30_892, Close: 40_652, Delete: 274_710},
	{Name: "bad", Source: "very fast disk with virus scanning on",
		Open: 275_886, RW: 92_956, Close: 3_194_958, Delete: 542_650},
}

// Grade places a result among the References.
type Grade struct {
	// Name is the reference whose cycle is nearest on a log scale; a result
	// faster than "SSD-class" is SSD-class, one slower than "bad" is bad.
	Name string `json:"name"`
	// CycleNS is open + write + read + close + delete averages: the seed's
	// open + r/w + close + delete. fsync is left out: the seed's benchmark
	// does not sync.
	CycleNS int64 `json:"cycle_ns"`
	// Ratio is CycleNS over the SSD-class reference's cycle.
	Ratio float64 `json:"ratio_to_ssd_class"`
}

// grade compares r's averages with the References.
func grade(r Result) Grade {
	cycle := r.Stat(OpOpen).AvgNS + r.Stat(OpWrite).AvgNS + r.Stat(OpRead).AvgNS +
		r.Stat(OpClose).AvgNS + r.Stat(OpDelete).AvgNS
	g := Grade{CycleNS: cycle, Ratio: float64(cycle) / float64(References[0].Cycle())}
	best := math.Inf(1)
	for _, ref := range References {
		d := math.Abs(math.Log(float64(max(cycle, 1)) / float64(ref.Cycle())))
		if d < best {
			best, g.Name = d, ref.Name
		}
	}
	return g
}

// String is the one-line grade printed under the table.
func (g Grade) String() string {
	s := fmt.Sprintf("grade: %s (open+write+read+close+delete averages %s ns per file, %.2fx the SSD-class example; the article's examples:",
		g.Name, thousands(g.CycleNS), g.Ratio)
	for i, ref := range References {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprintf(" %s %s", ref.Name, thousands(ref.Cycle()))
	}
	return s + ")"
}
