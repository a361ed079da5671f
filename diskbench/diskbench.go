// Package diskbench measures the file operations an embedded database's
// speed rests on (Atlassian's "Test disk access speed for a Java
// application"):
//
//	res, err := diskbench.Run(ctx, diskbench.Options{Dir: "."})
//	res.WriteTable(os.Stdout) // "bbs diskbench [-dir DIR] [-n N] [-json]" runs it
//
// It creates, writes, reads back, fsyncs, closes and deletes a temporary
// file N times in a directory and reports each operation's average, median,
// minimum and maximum in nanoseconds, with a grade against the article's
// reference figures.
//
// It touches only files it created itself: each file is made with
// os.CreateTemp (O_CREATE|O_EXCL) under the name prefix Prefix, and removed
// before Run returns, also when its context ends early.
package diskbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"time"
)

// Prefix starts the name of every file diskbench creates.
const Prefix = "bbs-diskbench-"

// Defaults of Options.
const (
	DefaultN    = 1000
	DefaultSize = 4096 // one SQLite page
)

// Options configures Run.
type Options struct {
	Dir  string // directory to test; it must exist and be writable
	N    int    // files to create, write, read, fsync, close and delete (DefaultN when 0)
	Size int    // bytes written and read back per file (DefaultSize when 0)
}

// The operations, in the order one iteration runs them.
const (
	OpOpen   = "open"   // os.CreateTemp: create and open a new file
	OpWrite  = "write"  // write Size bytes
	OpRead   = "read"   // read them back (from the page cache)
	OpFsync  = "fsync"  // (*os.File).Sync
	OpClose  = "close"  // (*os.File).Close
	OpDelete = "delete" // os.Remove
)

// Ops lists the operations in table order.
var Ops = []string{OpOpen, OpWrite, OpRead, OpFsync, OpClose, OpDelete}

// Stat is the distribution of one operation's durations.
type Stat struct {
	Op       string `json:"op"`
	N        int    `json:"n"`
	AvgNS    int64  `json:"avg_ns"`
	MedianNS int64  `json:"median_ns"`
	MinNS    int64  `json:"min_ns"`
	MaxNS    int64  `json:"max_ns"`
}

// Result is the outcome of Run.
type Result struct {
	Dir   string `json:"dir"`
	N     int    `json:"n"`
	Bytes int    `json:"bytes"` // per write and per read
	Stats []Stat `json:"stats"` // in the order of Ops
	Grade Grade  `json:"grade"`
}

// Stat returns the statistics of op, or a zero Stat.
func (r Result) Stat(op string) Stat {
	for _, s := range r.Stats {
		if s.Op == op {
			return s
		}
	}
	return Stat{}
}

// Check reports whether dir exists, is a directory and accepts a new file,
// which it learns by creating and removing a probe file (permission bits do
// not tell: root may write where the bits say no, and a read-only mount or
// /proc refuses whatever they say).
func Check(dir string) error {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("diskbench: directory %q does not exist", dir)
	}
	if err != nil {
		return fmt.Errorf("diskbench: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("diskbench: %q is not a directory", dir)
	}
	f, err := os.CreateTemp(dir, Prefix+"probe-*")
	if err != nil {
		return fmt.Errorf("diskbench: directory %q is not writable: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("diskbench: remove probe file: %w", err)
	}
	return nil
}

// Run checks opt.Dir, then runs the benchmark. When ctx ends it stops,
// removes the file in hand and returns ctx's error.
func Run(ctx context.Context, opt Options) (res Result, err error) {
	if opt.N == 0 {
		opt.N = DefaultN
	}
	if opt.Size == 0 {
		opt.Size = DefaultSize
	}
	if opt.N < 0 || opt.Size < 0 {
		return Result{}, fmt.Errorf("diskbench: n = %d, size = %d: both must be positive", opt.N, opt.Size)
	}
	if err := Check(opt.Dir); err != nil {
		return Result{}, err
	}
	b := newBench(opt)
	defer func() {
		if cerr := b.cleanUp(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	for i := range opt.N {
		if err := b.file(ctx, i); err != nil {
			return Result{}, err
		}
	}
	res = Result{Dir: opt.Dir, N: opt.N, Bytes: opt.Size}
	for _, op := range Ops {
		res.Stats = append(res.Stats, summarize(op, b.times[op]))
	}
	res.Grade = grade(res)
	return res, nil
}

// bench is a benchmark under way: the times of each operation so far and
// the file in hand, removed on every way out (cleanUp).
type bench struct {
	opt   Options
	times map[string][]time.Duration
	wbuf  []byte // what each file holds
	rbuf  []byte // what is read back
	f     *os.File
	name  string
}

func newBench(opt Options) *bench {
	b := &bench{opt: opt, times: make(map[string][]time.Duration, len(Ops)), rbuf: make([]byte, opt.Size)}
	for _, op := range Ops {
		b.times[op] = make([]time.Duration, 0, opt.N)
	}
	b.wbuf = bytes.Repeat([]byte("bbs-lab-"), opt.Size/8+1)[:opt.Size]
	return b
}

// file times the life of file i (from 0): create, write, read back and
// compare, fsync, close, delete. Between the steps it stops when ctx has
// ended.
func (b *bench) file(ctx context.Context, i int) error {
	interrupted := func() error {
		if ctx.Err() != nil {
			return fmt.Errorf("diskbench: interrupted after %d of %d files: %w", i, b.opt.N, ctx.Err())
		}
		return nil
	}
	if err := interrupted(); err != nil {
		return err
	}
	var err error
	t := time.Now()
	b.f, err = os.CreateTemp(b.opt.Dir, Prefix+"*")
	b.times[OpOpen] = append(b.times[OpOpen], time.Since(t))
	if err != nil {
		b.f = nil
		return fmt.Errorf("diskbench: create file %d in %s: %w", i+1, b.opt.Dir, err)
	}
	b.name = b.f.Name()
	if err := interrupted(); err != nil {
		return err
	}

	t = time.Now()
	_, err = b.f.WriteAt(b.wbuf, 0)
	b.times[OpWrite] = append(b.times[OpWrite], time.Since(t))
	if err != nil {
		return fmt.Errorf("diskbench: write %s: %w", b.name, err)
	}
	t = time.Now()
	_, err = b.f.ReadAt(b.rbuf, 0)
	b.times[OpRead] = append(b.times[OpRead], time.Since(t))
	if err != nil {
		return fmt.Errorf("diskbench: read %s: %w", b.name, err)
	}
	if !bytes.Equal(b.rbuf, b.wbuf) {
		return fmt.Errorf("diskbench: %s: read back other bytes than written", b.name)
	}
	if err := interrupted(); err != nil {
		return err
	}

	t = time.Now()
	err = b.f.Sync()
	b.times[OpFsync] = append(b.times[OpFsync], time.Since(t))
	if err != nil {
		return fmt.Errorf("diskbench: fsync %s: %w", b.name, err)
	}
	t = time.Now()
	err = b.f.Close()
	b.times[OpClose] = append(b.times[OpClose], time.Since(t))
	b.f = nil
	if err != nil {
		return fmt.Errorf("diskbench: close %s: %w", b.name, err)
	}
	if err := interrupted(); err != nil {
		return err
	}

	t = time.Now()
	err = os.Remove(b.name)
	b.times[OpDelete] = append(b.times[OpDelete], time.Since(t))
	if err != nil {
		return fmt.Errorf("diskbench: delete %s: %w", b.name, err)
	}
	b.name = ""
	return nil
}

// cleanUp closes and removes the file in hand, if any.
func (b *bench) cleanUp() error {
	if b.f != nil {
		b.f.Close()
	}
	if b.name != "" {
		if err := os.Remove(b.name); err != nil {
			return fmt.Errorf("diskbench: clean up %s: %w", b.name, err)
		}
	}
	return nil
}

// summarize computes the average, median, minimum and maximum of d.
func summarize(op string, d []time.Duration) Stat {
	s := Stat{Op: op, N: len(d)}
	if len(d) == 0 {
		return s
	}
	sorted := slices.Clone(d)
	slices.Sort(sorted)
	var sum time.Duration
	for _, v := range sorted {
		sum += v
	}
	n := len(sorted)
	s.AvgNS = int64(sum) / int64(n)
	s.MinNS = int64(sorted[0])
	s.MaxNS = int64(sorted[n-1])
	if n%2 == 1 {
		s.MedianNS = int64(sorted[n/2])
	} else {
		s.MedianNS = (int64(sorted[n/2-1]) + int64(sorted[n/2])) / 2
	}
	return s
}
