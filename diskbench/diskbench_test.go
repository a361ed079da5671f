package diskbench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	res, err := Run(context.Background(), Options{Dir: dir, N: 51, Size: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stats) != len(Ops) {
		t.Fatalf("Run gave %d stats; want %d (%v)", len(res.Stats), len(Ops), Ops)
	}
	for i, s := range res.Stats {
		if s.Op != Ops[i] || s.N != 51 {
			t.Errorf("stat %d = %+v; want op %q over 51 files", i, s, Ops[i])
		}
		if !(s.MinNS <= s.MedianNS && s.MedianNS <= s.MaxNS && s.MinNS <= s.AvgNS && s.AvgNS <= s.MaxNS && s.MaxNS > 0) {
			t.Errorf("%s: min %d, median %d, avg %d, max %d; want min <= median, avg <= max, max > 0", s.Op, s.MinNS, s.MedianNS, s.AvgNS, s.MaxNS)
		}
	}
	if names := entries(t, dir); len(names) != 0 {
		t.Errorf("Run left %v in %s; want it empty", names, dir)
	}
	if res.Grade.Name == "" || res.Grade.CycleNS <= 0 {
		t.Errorf("grade = %+v; want a name and a cycle", res.Grade)
	}

	var table bytes.Buffer
	if err := res.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, want := range append([]string{"stat", "avg", "median", "min", "max", "All times are in nanoseconds.", "grade: " + res.Grade.Name}, Ops...) {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	var js bytes.Buffer
	if err := res.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Stats) != len(Ops) || back.Stats[0].MaxNS != res.Stats[0].MaxNS || back.Grade != res.Grade {
		t.Errorf("JSON round trip = %+v, %v; want %+v", back, err, res)
	}
}

func TestRunLeavesOtherFiles(t *testing.T) {
	dir := t.TempDir()
	theirs := map[string]string{"bbs.db": "database", Prefix + "not-ours": "someone else's"}
	for name, body := range theirs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Run(context.Background(), Options{Dir: dir, N: 10}); err != nil {
		t.Fatal(err)
	}
	if names := entries(t, dir); len(names) != len(theirs) {
		t.Errorf("after Run the directory holds %v; want only %d files that were there", names, len(theirs))
	}
	for name, body := range theirs {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != body {
			t.Errorf("%s = %q, %v; want %q untouched", name, b, err, body)
		}
	}
}

// countdown is a context whose Err turns to Canceled after n calls, to
// interrupt Run at a known point without timing.
type countdown struct {
	context.Context
	n atomic.Int64
}

func (c *countdown) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

func TestRunInterrupted(t *testing.T) {
	// Run checks its context four times per file; stop it at each point of
	// the second file and make sure nothing is left behind.
	for stop := int64(4); stop < 8; stop++ {
		dir := t.TempDir()
		ctx := &countdown{Context: context.Background()}
		ctx.n.Store(stop)
		_, err := Run(ctx, Options{Dir: dir, N: 100})
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted after 1 of 100") {
			t.Errorf("Run stopped at check %d = %v; want interrupted after 1 of 100, context.Canceled", stop, err)
		}
		if names := entries(t, dir); len(names) != 0 {
			t.Errorf("Run stopped at check %d left %v", stop, names)
		}
	}
}

func TestRunRefuses(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ dir, want string }{
		{filepath.Join(t.TempDir(), "missing"), "does not exist"},
		{file, "is not a directory"},
	}
	// Tests run as root, which writes through mode 0555; /proc refuses a new
	// file to anyone, so it stands in for a read-only directory.
	if fi, err := os.Stat("/proc"); err == nil && fi.IsDir() {
		cases = append(cases, struct{ dir, want string }{"/proc", "is not writable"})
	}
	for _, tc := range cases {
		_, err := Run(context.Background(), Options{Dir: tc.dir, N: 1})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.dir) {
			t.Errorf("Run(%q) = %v; want an error naming the directory and saying %q", tc.dir, err, tc.want)
		}
	}
}

func TestGrade(t *testing.T) {
	result := func(open, rw, cl, del int64) Result {
		return Result{Stats: []Stat{
			{Op: OpOpen, AvgNS: open}, {Op: OpWrite, AvgNS: rw / 2}, {Op: OpRead, AvgNS: rw - rw/2},
			{Op: OpFsync, AvgNS: 1e9}, {Op: OpClose, AvgNS: cl}, {Op: OpDelete, AvgNS: del},
		}}
	}
	for _, tc := range []struct {
		r    Result
		want string
	}{
		{result(1000, 1000, 1000, 1000), "SSD-class"},
		{result(35_289, 30_934, 14_988, 39_135), "SSD-class"},
		{result(75_830, 46_407, 5_751, 118_942), "OK"},
		{result(133_704, 30_892, 40_652, 274_710), "average"},
		{result(275_886, 92_956, 3_194_958, 542_650), "bad"},
		{result(4_790_174, 14_947, 4_398_125, 4_323_586), "bad"},
	} {
		if g := grade(tc.r); g.Name != tc.want {
			t.Errorf("grade(cycle %d) = %+v; want %q", g.CycleNS, g, tc.want)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 35289: "35,289", 9796000: "9,796,000", -1234: "-1,234"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q; want %q", n, got, want)
		}
	}
}
