// Package bench measures the load generator's efficiency, as "loadtest
// bench" does:
//
//	err := bench.Run(ctx, bench.Options{Exe: exe, Duration: 10 * time.Second, Full: true, Rounds: 3}, os.Stdout, os.Stderr)
//
// It measures requests per CPU-second at full speed against "loadtest
// pageserver", compared with wrk and hey when they are available; the cost
// of holding 1,000 and 10,000 slow clients; and what TLS costs the
// generator per request. Every tool runs as a child process, so that its
// CPU time and peak resident set are its own.
package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"bbslab/internal/child"
	"bbslab/loadtest"
	"bbslab/machine"
)

// Options are the settings of one bench.
type Options struct {
	// Exe is the loadtest binary. The tags are the flags of loadtest bench.
	Exe      string
	Duration time.Duration `flag:"duration" default:"10s" help:"length of each full-speed run"`
	Conns    int           `flag:"conns" default:"50" help:"connections for the full-speed runs"`
	Size     int           `flag:"size" default:"2048" help:"page size in bytes"`
	// Full, Slow1k, Slow10k and TLS choose the scenarios (Choose).
	Full, Slow1k, Slow10k, TLS bool

	Hey        string `flag:"hey" help:"path of the hey binary (default: on PATH, else built with go install into a temp dir)"`
	Rounds     int    `flag:"rounds" default:"3" help:"full-speed rounds; tools alternate within a round and the median and best are reported"`
	SlowRounds int    `flag:"slow-rounds" default:"3" help:"rounds of each 1,000-client run (the median is reported)"`
	Pin        bool   `flag:"pin" default:"true" help:"pin the generator to CPU 0 and the target to CPU 1 (Linux)"`
}

// Choose sets Full, Slow1k, Slow10k and TLS from a comma-separated list
// of "full", "1k", "10k" and "tls"; other names choose nothing.
func (o *Options) Choose(list string) {
	choice := map[string]*bool{"full": &o.Full, "1k": &o.Slow1k, "10k": &o.Slow10k, "tls": &o.TLS}
	for _, s := range strings.Split(list, ",") {
		if p := choice[strings.TrimSpace(s)]; p != nil {
			*p = true
		}
	}
}

// Run runs the scenarios o chooses and prints their results to stdout;
// the target's standard error goes to stderr.
func Run(ctx context.Context, o Options, stdout, stderr io.Writer) error {
	tmp, err := os.MkdirTemp("", "loadtest-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	b := &bench{gen: Generator{Exe: o.Exe, Dir: tmp}, stdout: stdout, stderr: stderr}
	why := Unpinned(o.Pin)
	if why == "" {
		b.gen.CPUs, b.targetCPU = []int{0}, []int{1}
		fmt.Fprintln(stdout, "pinning: generator on CPU 0, target on CPU 1")
	} else {
		fmt.Fprintf(stdout, "pinning: none (%s); generator and target share the CPUs\n", why)
	}
	url, stop, err := b.startTarget(o.Size)
	if err != nil {
		return err
	}
	defer stop()
	fmt.Fprintf(stdout, "target: %s (%d-byte page, child process)\n", url, o.Size)

	if o.Full {
		if err := b.full(ctx, url, o.Duration, o.Conns, o.Hey, max(1, o.Rounds)); err != nil {
			return err
		}
	}
	if o.Slow1k {
		if err := b.slowClients(ctx, url, 1000, time.Second, 3*time.Second, 20*time.Second, []time.Duration{0, 500 * time.Microsecond}, max(1, o.SlowRounds), slowGoal{cpuPct: 5, rssMB: 32, p50OverMs: 1}); err != nil {
			return err
		}
		if err := b.wrkSlow(ctx, url, 1000, time.Second, 20*time.Second); err != nil {
			return err
		}
	}
	if o.TLS {
		if err := b.tls(ctx, url, o.Size, o.Duration, o.Conns, max(1, o.Rounds)); err != nil {
			return err
		}
	}
	if o.Slow10k {
		if err := b.slowClients(ctx, url, 10000, 10*time.Second, 10*time.Second, 20*time.Second, []time.Duration{0}, 1, slowGoal{rssMB: 64}); err != nil {
			return err
		}
	}
	return nil
}

// Unpinned says why a run is not pinned to CPUs 0 and 1, or "" when it is.
func Unpinned(pin bool) string {
	if !pin {
		return "-pin=false"
	}
	if err := child.CanPin(0, 1); err != nil {
		return err.Error()
	}
	return ""
}

type bench struct {
	gen            Generator // "loadtest run"; its CPUs are the generator's
	targetCPU      []int
	stdout, stderr io.Writer
}

// startTarget runs "loadtest pageserver" with extra flags and returns its
// URL.
func (b *bench) startTarget(size int, extra ...string) (string, func(), error) {
	p, url, err := child.StartAnnounced(child.Spec{Argv: append([]string{b.gen.Exe, "pageserver", "-addr", "127.0.0.1:0", "-size", strconv.Itoa(size)}, extra...),
		Stderr: b.stderr, CPUs: b.targetCPU, Pin: true}, "", 2*time.Minute)
	if err != nil {
		return "", nil, fmt.Errorf("target did not start: %w", err)
	}
	return url, func() { p.Stop(10 * time.Second) }, nil
}

// measured is one tool's run.
type measured struct {
	tool     string
	requests int64
	cpu      float64 // user+system seconds of the tool's process
	wall     float64
	rssMB    float64
}

// runTool runs a command, held to cpus, to completion and returns its
// output and usage.
func runTool(ctx context.Context, cpus []int, name string, args ...string) ([]byte, measured, error) {
	var out bytes.Buffer
	t0 := time.Now()
	p, err := child.Start(child.Spec{Argv: append([]string{name}, args...), Stdout: &out, Stderr: &out, CPUs: cpus, Pin: true})
	if err == nil {
		err = p.Wait(ctx)
	}
	m := measured{wall: time.Since(t0).Seconds()}
	if err != nil {
		return out.Bytes(), m, fmt.Errorf("%s: %w\n%s", name, err, out.String())
	}
	pu := p.Usage()
	m.cpu = (pu.User + pu.System).Seconds()
	if pu.PeakRSSBytes != nil {
		m.rssMB = float64(*pu.PeakRSSBytes) / (1 << 20)
	}
	return out.Bytes(), m, nil
}

// A Generator runs "loadtest run" in a child process, held to CPUs, and
// reads the result it writes.
type Generator struct {
	Exe  string // the loadtest binary
	Dir  string // where the results are written
	CPUs []int  // none: not pinned
}

// Run runs "loadtest run" with args, writing its result to Dir/name.json.
func (g Generator) Run(ctx context.Context, name string, args ...string) (*loadtest.Result, error) {
	res, _, err := g.run(ctx, name, args...)
	return res, err
}

// run is Run that also returns the generator's own usage.
func (g Generator) run(ctx context.Context, name string, args ...string) (*loadtest.Result, measured, error) {
	out := filepath.Join(g.Dir, name+".json")
	args = append([]string{"run", "-progress", "off", "-out", out}, args...)
	text, m, err := runTool(ctx, g.CPUs, g.Exe, args...)
	if err != nil {
		return nil, measured{}, err
	}
	res, err := loadtest.ReadResult(out)
	if err != nil {
		return nil, measured{}, fmt.Errorf("%w\n%s", err, text)
	}
	m.tool, m.requests = "loadtest", res.Total.Requests
	return res, m, nil
}

var (
	wrkRe = regexp.MustCompile(`(\d+) requests in`)
	heyRe = regexp.MustCompile(`\[200\]\s+(\d+) responses`)
)

// full compares requests per CPU-second at full speed. The tools take
// turns within each round so that the machine's drift hits them alike.
func (b *bench) full(ctx context.Context, url string, dur time.Duration, conns int, heyPath string, rounds int) error {
	fmt.Fprintf(b.stdout, "\n== full speed: %d connections, %v per run, no think time, %d rounds\n", conns, dur, rounds)
	type tool struct {
		name string
		run  func() (measured, error)
	}
	tools := []tool{{"loadtest", func() (measured, error) {
		_, m, err := b.gen.run(ctx, "full", "-url", url, "-clients", strconv.Itoa(conns), "-duration", dur.String())
		return m, err
	}}}
	if wrk, err := exec.LookPath("wrk"); err == nil {
		tools = append(tools, tool{"wrk -t1", func() (measured, error) {
			return b.external(ctx, wrkRe, wrk, "-t1", "-c"+strconv.Itoa(conns), "-d"+strconv.Itoa(int(dur.Seconds()))+"s", url)
		}})
	} else {
		fmt.Fprintln(b.stdout, "wrk: not found (apt-get install wrk); skipped")
	}
	if hey := b.findHey(ctx, heyPath); hey != "" {
		tools = append(tools, tool{"hey", func() (measured, error) {
			return b.external(ctx, heyRe, hey, "-z", dur.String(), "-c", strconv.Itoa(conns), url)
		}})
	} else {
		fmt.Fprintln(b.stdout, "hey: not found and could not be built; skipped")
	}
	runs := make([][]measured, len(tools))
	for r := 0; r < rounds; r++ {
		for i, t := range tools {
			m, err := t.run()
			if err != nil {
				return err
			}
			m.tool = t.name
			runs[i] = append(runs[i], m)
			fmt.Fprintf(b.stdout, "round %d %-8s %8d requests  %.2f cpu s  %6.0f req/cpu-s\n", r+1, t.name, m.requests, m.cpu, m.eff())
		}
	}
	tw := tabwriter.NewWriter(b.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "tool\treq/s (median)\treq per cpu-s (median)\t(best)\tloadtest ÷ tool (median)\t(best)\t")
	med, best := make([]float64, len(tools)), make([]float64, len(tools))
	for i, t := range tools { // loadtest's row first: the others divide by it
		var effs, rates []float64
		for _, m := range runs[i] {
			effs = append(effs, m.eff())
			rates = append(rates, float64(m.requests)/m.wall)
		}
		med[i], best[i] = loadtest.Median(effs), slices.Max(effs)
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%.0f\t%.2f\t%.2f\t\n", t.name, loadtest.Median(rates), med[i], best[i], med[0]/med[i], best[0]/best[i])
	}
	return tw.Flush()
}

func (m measured) eff() float64 {
	if m.cpu == 0 {
		return 0
	}
	return float64(m.requests) / m.cpu
}

// external runs another load tool and reads its request count with re.
func (b *bench) external(ctx context.Context, re *regexp.Regexp, name string, args ...string) (measured, error) {
	text, m, err := runTool(ctx, b.gen.CPUs, name, args...)
	if err != nil {
		return measured{}, err
	}
	count := re.FindSubmatch(text)
	if count == nil {
		return measured{}, fmt.Errorf("%s: no request count in its output:\n%s", name, text)
	}
	m.requests, _ = strconv.ParseInt(string(count[1]), 10, 64)
	return m, nil
}

// heyModule is the hey that bench builds when none is on PATH, pinned so
// that two runs compare with the same client.
const heyModule = "github.com/rakyll/hey@v0.1.5"

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
	fmt.Fprintf(b.stdout, "hey: building %s into a temp dir\n", heyModule)
	cmd := exec.CommandContext(ctx, goBin, "install", heyModule)
	cmd.Env = append(os.Environ(), "GOBIN="+b.gen.Dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(b.stdout, "hey: build failed: %v\n%s", err, out)
		return ""
	}
	return filepath.Join(b.gen.Dir, "hey")
}

// slowClients measures holding many clients at a low rate each: the
// generator's CPU, peak RSS and p50 over the server's own (one client's
// p50 in the delay model), rounds times for each timer slack.
func (b *bench) slowClients(ctx context.Context, url string, clients int, think, warmup, dur time.Duration, slacks []time.Duration, rounds int, goal slowGoal) error {
	fmt.Fprintf(b.stdout, "\n== %d clients, 1 request per %v each (rate model), warm-up %v, measured %v\n", clients, think, warmup, dur)
	base, _, err := b.gen.run(ctx, fmt.Sprintf("base%d", clients), "-url", url, "-clients", "1", "-model", "delay", "-think", "10ms", "-duration", "3s")
	if err != nil {
		return err
	}
	fmt.Fprintf(b.stdout, "server's own time: p50 %.3f ms (one client, delay model, latency from the actual send)\n", base.Total.P50Ms)
	for _, slack := range slacks {
		var pcts []float64
		var rss, p50Over float64
		for round := 1; round <= rounds; round++ {
			held := watchEstablished(url)
			res, m, err := b.gen.run(ctx, fmt.Sprintf("slow%d-%v-%d", clients, slack, round), "-url", url, "-clients", strconv.Itoa(clients), "-model", "rate",
				"-think", think.String(), "-timer-slack", slack.String(), "-warmup", warmup.String(), "-duration", dur.String(), "-timeout", "30s")
			conns := held()
			if err != nil {
				return err
			}
			c := res.Cost
			pct := 100 * m.cpu / m.wall
			pcts = append(pcts, pct)
			rss, p50Over = max(rss, m.rssMB), max(p50Over, res.Total.P50Ms-base.Total.P50Ms)
			fmt.Fprintf(b.stdout, "timer slack %v, round %d: throughput %.1f/s (ideal %.1f), errors %d, connections held: %s\n", slack, round, res.Total.Throughput, float64(clients)/think.Seconds(), res.Total.Errors, conns)
			fmt.Fprintf(b.stdout, "  generator process: cpu %.2f s over %.1f s wall = %.2f%% of a core (measured period alone: %s%%), peak RSS %.1f MB, go memory %.1f MB, gc %d (max pause %.3f ms)\n",
				m.cpu, m.wall, pct, c.CPUText("%.2f"), m.rssMB, float64(c.PeakGoBytes)/(1<<20), c.GCCycles, c.GCPauseMaxMs)
			fmt.Fprintf(b.stdout, "  latency from the intended start: p50 %.3f ms, p99 %.3f ms; p50 − server's own p50 = %.3f ms; timer lag mean %.3f ms, p99 %.3f ms\n",
				res.Total.P50Ms, res.Total.P99Ms, res.Total.P50Ms-base.Total.P50Ms, c.TimerLagMeanMs, c.TimerLagP99Ms)
			if res.Total.Errors > 0 {
				return errors.New("bench: errors during the slow-client run")
			}
		}
		slices.Sort(pcts)
		med := loadtest.Median(pcts)
		fmt.Fprintf(b.stdout, "timer slack %v: median %.2f%% of a core over %d rounds (%s)\n", slack, med, len(pcts), joinPcts(pcts))
		fmt.Fprintf(b.stdout, "timer slack %v: %s\n", slack, goal.check(med, rss, p50Over))
	}
	return nil
}

// slowGoal is a slow-client scenario's targets; zero is none.
type slowGoal struct {
	cpuPct, rssMB, p50OverMs float64
}

// check says which targets the figures met.
func (g slowGoal) check(cpuPct, rssMB, p50OverMs float64) string {
	var parts []string
	add := func(limit, got float64, what, unit string) {
		if limit == 0 {
			return
		}
		verdict := "met"
		if got >= limit {
			verdict = "MISSED"
		}
		parts = append(parts, fmt.Sprintf("%s < %g%s: %s (%.2f)", what, limit, unit, verdict, got))
	}
	add(g.cpuPct, cpuPct, "CPU", " % of a core")
	add(g.rssMB, rssMB, "peak RSS", " MB")
	add(g.p50OverMs, p50OverMs, "p50 − server's own", " ms")
	return "targets: " + strings.Join(parts, "; ")
}

func joinPcts(p []float64) string {
	s := make([]string, len(p))
	for i, v := range p {
		s[i] = fmt.Sprintf("%.2f%%", v)
	}
	return strings.Join(s, ", ")
}

// wrkSlow runs wrk with clients connections and a Lua delay() after each
// response, fixed (all fire in lock step) and random (spread, like the
// rate model).
func (b *bench) wrkSlow(ctx context.Context, url string, clients int, think, dur time.Duration) error {
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		return nil
	}
	ms := think.Milliseconds()
	for _, v := range []struct{ name, body string }{
		{"fixed delay (lock step)", fmt.Sprintf("return %d", ms)},
		{"random delay (spread)", fmt.Sprintf("return math.random(%d, %d)", ms/2, ms*3/2)},
	} {
		script := filepath.Join(b.gen.Dir, "delay.lua")
		if err := os.WriteFile(script, []byte("function delay()\n  "+v.body+"\nend\n"), 0o644); err != nil {
			return err
		}
		text, m, err := runTool(ctx, b.gen.CPUs, wrk, "-t1", "-c"+strconv.Itoa(clients), "-d"+strconv.Itoa(int(dur.Seconds()))+"s", "--latency", "-s", script, url)
		if err != nil {
			return err
		}
		p50 := "?"
		if m := wrkP50Re.FindSubmatch(text); m != nil {
			p50 = string(m[1])
		}
		fmt.Fprintf(b.stdout, "wrk -c%d, %s: cpu %.2f s over %.1f s wall = %.2f%% of a core, peak RSS %.1f MB, p50 %s\n",
			clients, v.name, m.cpu, m.wall, 100*m.cpu/m.wall, m.rssMB, p50)
	}
	return nil
}

var wrkP50Re = regexp.MustCompile(`\n\s+50%\s+(\S+)`)

// watchEstablished counts, once a second, the ESTABLISHED sockets on the
// target's port on both sides until the returned function, which
// summarizes them, is called.
func watchEstablished(target string) func() string {
	port := 0
	if u, err := neturl.Parse(target); err == nil {
		port, _ = strconv.Atoi(u.Port())
	}
	if port == 0 {
		return func() string { return "unknown" }
	}
	done, out := make(chan struct{}), make(chan string, 1)
	go func() {
		var server, client []int
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				if s, err := machine.LocalPort(port); err == nil {
					server = append(server, s.States["ESTABLISHED"])
				}
				if s, err := machine.RemotePort(port); err == nil {
					client = append(client, s.States["ESTABLISHED"])
				}
			case <-done:
				out <- fmt.Sprintf("%s at the target, %s at the clients", summarizeHeld(server), summarizeHeld(client))
				return
			}
		}
	}()
	return func() string {
		close(done)
		return <-out
	}
}

// summarizeHeld reports the peak count and the lowest between the first
// and the last sample at the peak: connections dropped while loaded.
func summarizeHeld(counts []int) string {
	if len(counts) == 0 {
		return "unknown"
	}
	peak, first, last := 0, 0, 0
	for i, n := range counts {
		if n > peak {
			peak, first = n, i
		}
		if n == peak {
			last = i
		}
	}
	lo := peak
	for _, n := range counts[first : last+1] {
		lo = min(lo, n)
	}
	return fmt.Sprintf("%d (%d-%d while loaded)", peak, lo, peak)
}
