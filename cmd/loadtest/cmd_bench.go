package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"bbslab/loadtest"
)

// cmdBench measures the generator's efficiency: requests per CPU-second at
// full speed against a page server in a child process (compared with wrk
// and hey when they are available), and the cost of holding 1,000 and
// 10,000 slow clients. Generator and target are pinned to different CPUs
// with taskset when it exists.
func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dur := fs.Duration("duration", 10*time.Second, "length of each full-speed run")
	conns := fs.Int("conns", 50, "connections for the full-speed runs")
	size := fs.Int("size", 2048, "page size in bytes")
	only := fs.String("only", "full,1k,10k", "scenarios to run: full (vs wrk and hey), 1k, 10k")
	heyPath := fs.String("hey", "", "path of the hey binary (default: on PATH, else built with go install into a temp dir)")
	pin := fs.Bool("pin", true, "pin generator and target to different CPUs with taskset")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	tmp, err := os.MkdirTemp("", "loadtest-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	b := &bench{exe: exe, tmp: tmp, stdout: stdout, stderr: stderr}
	if _, err := exec.LookPath("taskset"); err == nil && *pin && runtime.NumCPU() >= 2 {
		b.genCPU, b.targetCPU = []string{"taskset", "-c", "0"}, []string{"taskset", "-c", "1"}
		fmt.Fprintln(stdout, "pinning: generator on CPU 0, target on CPU 1 (taskset)")
	} else {
		fmt.Fprintln(stdout, "pinning: none (taskset missing, -pin=false or one CPU); generator and target share the CPUs")
	}
	url, stop, err := b.startTarget(ctx, *size)
	if err != nil {
		return err
	}
	defer stop()
	fmt.Fprintf(stdout, "target: %s (%d-byte page, child process)\n", url, *size)

	want := map[string]bool{}
	for _, s := range strings.Split(*only, ",") {
		want[strings.TrimSpace(s)] = true
	}
	if want["full"] {
		if err := b.full(ctx, url, *dur, *conns, *heyPath); err != nil {
			return err
		}
	}
	if want["1k"] {
		if err := b.slowClients(ctx, url, 1000, time.Second, 3*time.Second, 20*time.Second); err != nil {
			return err
		}
	}
	if want["10k"] {
		if err := b.slowClients(ctx, url, 10000, 10*time.Second, 10*time.Second, 20*time.Second); err != nil {
			return err
		}
	}
	return nil
}

type bench struct {
	exe               string
	tmp               string
	genCPU, targetCPU []string
	stdout, stderr    io.Writer
}

// command builds a command with an optional taskset prefix.
func (b *bench) command(ctx context.Context, prefix []string, name string, args ...string) *exec.Cmd {
	all := append(append(append([]string{}, prefix...), name), args...)
	return exec.CommandContext(ctx, all[0], all[1:]...)
}

// startTarget runs "loadtest target" as a child and returns its URL.
func (b *bench) startTarget(ctx context.Context, size int) (string, func(), error) {
	cmd := b.command(ctx, b.targetCPU, b.exe, "target", "-addr", "127.0.0.1:0", "-size", strconv.Itoa(size))
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	cmd.Stderr = b.stderr
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start target: %w", err)
	}
	stop := func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("target did not start: %w", err)
	}
	return strings.TrimSpace(line), stop, nil
}

// measured is one tool's run.
type measured struct {
	tool     string
	requests int64
	cpu      float64 // user+system seconds of the tool's process
	wall     float64
	rssMB    float64
	note     string
}

// runTool runs a command to completion and returns its output and usage.
func (b *bench) runTool(ctx context.Context, prefix []string, name string, args ...string) ([]byte, *syscall.Rusage, float64, error) {
	cmd := b.command(ctx, prefix, name, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	t0 := time.Now()
	err := cmd.Run()
	wall := time.Since(t0).Seconds()
	if err != nil {
		return out.Bytes(), nil, wall, fmt.Errorf("%s: %w\n%s", name, err, out.String())
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return out.Bytes(), ru, wall, nil
}

func cpuOf(ru *syscall.Rusage) float64 {
	if ru == nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

// ourRun runs "loadtest run" as a child and reads its result.
func (b *bench) ourRun(ctx context.Context, name string, args ...string) (*loadtest.Result, measured, error) {
	out := filepath.Join(b.tmp, name+".json")
	args = append([]string{"run", "-progress", "off", "-out", out}, args...)
	text, ru, wall, err := b.runTool(ctx, b.genCPU, b.exe, args...)
	if err != nil {
		return nil, measured{}, err
	}
	res, err := loadtest.ReadResult(out)
	if err != nil {
		return nil, measured{}, fmt.Errorf("%w\n%s", err, text)
	}
	m := measured{tool: "loadtest", requests: res.Total.Requests, cpu: cpuOf(ru), wall: wall}
	if ru != nil {
		m.rssMB = float64(ru.Maxrss) / 1024
	}
	return res, m, nil
}

var (
	wrkRe = regexp.MustCompile(`(\d+) requests in`)
	heyRe = regexp.MustCompile(`\[200\]\s+(\d+) responses`)
)

// full compares requests per CPU-second at full speed.
func (b *bench) full(ctx context.Context, url string, dur time.Duration, conns int, heyPath string) error {
	fmt.Fprintf(b.stdout, "\n== full speed: %d connections, %v each, no think time\n", conns, dur)
	var rows []measured
	_, ours, err := b.ourRun(ctx, "full", "-url", url, "-clients", strconv.Itoa(conns), "-duration", dur.String())
	if err != nil {
		return err
	}
	rows = append(rows, ours)
	if wrk, err := exec.LookPath("wrk"); err == nil {
		text, ru, wall, err := b.runTool(ctx, b.genCPU, wrk, "-t1", "-c"+strconv.Itoa(conns), "-d"+strconv.Itoa(int(dur.Seconds()))+"s", url)
		if err != nil {
			return err
		}
		if m := wrkRe.FindSubmatch(text); m != nil {
			n, _ := strconv.ParseInt(string(m[1]), 10, 64)
			rows = append(rows, measured{tool: "wrk -t1", requests: n, cpu: cpuOf(ru), wall: wall})
		}
	} else {
		fmt.Fprintln(b.stdout, "wrk: not found (apt-get install wrk); skipped")
	}
	if hey := b.findHey(ctx, heyPath); hey != "" {
		text, ru, wall, err := b.runTool(ctx, b.genCPU, hey, "-z", dur.String(), "-c", strconv.Itoa(conns), url)
		if err != nil {
			return err
		}
		if m := heyRe.FindSubmatch(text); m != nil {
			n, _ := strconv.ParseInt(string(m[1]), 10, 64)
			rows = append(rows, measured{tool: "hey", requests: n, cpu: cpuOf(ru), wall: wall})
		}
	} else {
		fmt.Fprintln(b.stdout, "hey: not found and could not be built; skipped")
	}
	tw := tabwriter.NewWriter(b.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "tool\trequests\twall s\tcpu s\treq/s\treq per cpu-s\tloadtest ÷ tool\t")
	base := float64(ours.requests) / ours.cpu
	for _, r := range rows {
		eff := float64(r.requests) / r.cpu
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.2f\t%.0f\t%.0f\t%.2f\t\n", r.tool, r.requests, r.wall, r.cpu, float64(r.requests)/r.wall, eff, base/eff)
	}
	return tw.Flush()
}

// findHey returns a hey binary, building one if needed and possible.
func (b *bench) findHey(ctx context.Context, path string) string {
	if path != "" {
		return path
	}
	if p, err := exec.LookPath("hey"); err == nil {
		return p
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return ""
	}
	fmt.Fprintln(b.stdout, "hey: building github.com/rakyll/hey@latest into a temp dir")
	cmd := exec.CommandContext(ctx, goBin, "install", "github.com/rakyll/hey@latest")
	cmd.Env = append(os.Environ(), "GOBIN="+b.tmp)
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(b.stdout, "hey: build failed: %v\n%s", err, out)
		return ""
	}
	return filepath.Join(b.tmp, "hey")
}

// slowClients measures holding many clients at a low rate each (rate
// model): CPU percent, peak RSS and p50 against a one-client baseline.
func (b *bench) slowClients(ctx context.Context, url string, clients int, think, warmup, dur time.Duration) error {
	fmt.Fprintf(b.stdout, "\n== %d clients, 1 request per %v each (rate model), warm-up %v, measured %v\n", clients, think, warmup, dur)
	base, _, err := b.ourRun(ctx, fmt.Sprintf("base%d", clients), "-url", url, "-clients", "1", "-model", "rate", "-think", "10ms", "-duration", "3s")
	if err != nil {
		return err
	}
	res, m, err := b.ourRun(ctx, fmt.Sprintf("slow%d", clients), "-url", url, "-clients", strconv.Itoa(clients), "-model", "rate",
		"-think", think.String(), "-warmup", warmup.String(), "-duration", dur.String(), "-timeout", "30s")
	if err != nil {
		return err
	}
	c := res.Cost
	fmt.Fprintf(b.stdout, "throughput %.1f/s (ideal %.1f), errors %d\n", res.Total.Throughput, float64(clients)/think.Seconds(), res.Total.Errors)
	fmt.Fprintf(b.stdout, "generator process: cpu %.2f s over %.1f s wall = %.2f%% of a core (measured period alone: %.2f%%), peak RSS %.1f MB, go memory %.1f MB, goroutines %d, gc %d (max pause %.3f ms)\n",
		m.cpu, m.wall, 100*m.cpu/m.wall, c.CPUPercent, m.rssMB, float64(c.PeakGoBytes)/(1<<20), c.Goroutines, c.GCCycles, c.GCPauseMaxMs)
	fmt.Fprintf(b.stdout, "latency p50 %.3f ms, p99 %.3f ms; one-client baseline (server + network) p50 %.3f ms; p50 − baseline = %.3f ms; timer lag p99 %.3f ms\n",
		res.Total.P50Ms, res.Total.P99Ms, base.Total.P50Ms, res.Total.P50Ms-base.Total.P50Ms, c.TimerLagP99Ms)
	if res.Total.Errors > 0 {
		return errors.New("bench: errors during the slow-client run")
	}
	return nil
}
