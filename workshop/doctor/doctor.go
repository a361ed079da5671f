// Package doctor checks a laptop before a workshop day (docs/workshop.md):
//
//	r := doctor.Run(ctx, doctor.Default())
//	r.WriteText(os.Stdout) // what it read, then one line per exercise: ready, or the fix
//	if !r.CoreReady() { os.Exit(1) }
//
// Each check reads one thing within a timeout (the Go toolchain against
// go.mod, cgo's C compiler, a program, a port, the CPUs and pinning, the
// other work on the machine, PostgreSQL and its role's privileges) and
// says what it found and, when that stops an exercise, the command or the
// SQL that fixes it. An exercise is ready when none of the checks it needs
// is missing; a warning (a busy machine, one CPU) lets it run with figures
// that will differ from the page's. The core exercises are those that need
// only Go, gcc and curl (all but 7 and 10, which need PostgreSQL, and
// exercise 10 psql, HAProxy and PgBouncer: the workshop page's setup).
package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sync"
	"time"
)

// Status is how a check came out.
type Status int

const (
	// OK: what the exercises need is there.
	OK Status = iota
	// Warn: the exercises run, but their figures will differ from the
	// page's (or an optional tool is absent).
	Warn
	// Missing: the exercises that need it cannot run until the fix is
	// applied.
	Missing
)

var statusNames = []string{"ok", "warn", "missing"}

func (s Status) String() string { return statusNames[s] }

// MarshalText writes s as "ok", "warn" or "missing".
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads what MarshalText writes.
func (s *Status) UnmarshalText(b []byte) error {
	i := slices.Index(statusNames, string(b))
	if i < 0 {
		return fmt.Errorf("doctor: status %q: want ok, warn or missing", b)
	}
	*s = Status(i)
	return nil
}

// A Check is one thing read on this machine.
type Check struct {
	// Name is what exercises name it by: "go", "cgo", "curl", "port 8080", "postgres", ...
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Fact is what was read, on one line.
	Fact string `json:"fact"`
	// Fix is the command or SQL that makes it OK, on one line; empty when
	// OK or when nothing is to be done (a warning that is a fact).
	Fix string `json:"fix,omitempty"`
	// Help is longer advice printed under the check (several lines).
	Help string `json:"help,omitempty"`
}

// An Exercise of docs/workshop.md and the checks it needs.
type Exercise struct {
	N     int
	Title string
	// Core exercises need only Go, gcc and curl; the doctor's exit status
	// says whether they can run.
	Core  bool
	Needs []string
}

// Exercises are the workshop page's, with what each needs: 7 runs its
// boards on PostgreSQL; 10 a fleet on PostgreSQL behind HAProxy, with
// PgBouncer, on fixed ports; the experiments (3, 5, 6) pin the board and
// the load tool to a CPU each; 4 reads profiles from a running board.
func (c Config) Exercises() []Exercise {
	board := append([]string{"go", "cgo", "load"}, portNames(c.BoardPorts)...)
	exp := []string{"go", "cgo", "cpus", "load"}
	return []Exercise{
		{0, "The board and what a page costs", true, append(slices.Clone(board), "curl")},
		{1, "Load one command and watch the limits", true, board},
		{2, "The thread dump when response time rises", true, append(slices.Clone(board), "curl")},
		{3, "The article's graphs 1, 2 and 3", true, exp},
		{4, "Profiles: where the time goes in graphs 2 and 3", true, append(slices.Clone(board), "curl")},
		{5, "N+1: one query against thirty", true, exp},
		{6, "No pool: a new connection per query", true, exp},
		{7, "Pool sizing (PostgreSQL)", false, []string{"go", "cpus", "load", "postgres", "pg tables", "pg connections"}},
		{8, "Your turn: workers and pool against an SLO", true, board},
		{9, "A stall, and the tool that did not see it", true, board},
		{10, "A second board", false, append([]string{"go", "cgo", "load", "curl", "psql", "haproxy", "pgbouncer", "postgres", "pg fleet role"}, portNames(c.FleetPorts)...)},
	}
}

func portNames(ports []int) []string {
	var s []string
	for _, p := range ports {
		s = append(s, fmt.Sprintf("port %d", p))
	}
	return s
}

// Config is what the doctor checks against; Default gives the workshop's.
type Config struct {
	// Root is the repository's root (its go.mod names the Go it needs).
	Root string
	// DSN is the PostgreSQL server of exercises 7 and 10 (BBS_PG_DSN).
	DSN string
	// GOOS chooses the install commands the fixes give.
	GOOS string
	// LookPath finds a program (exec.LookPath; a test injects its own).
	LookPath func(name string) (string, error)
	// BoardPorts are the board's and its admin listener's (exercises 0,
	// 1, 2, 4, 8, 9); FleetPorts exercise 10's HAProxy, its metrics and the
	// two replicas' admin listeners.
	BoardPorts, FleetPorts []int
	// Window is how long the other work on the machine is measured.
	Window time.Duration
	// BusyLimit is the share of the CPUs (0..1) other programs may keep
	// busy before the figures are said to differ; StealLimit the same for
	// the hypervisor's steal.
	BusyLimit, StealLimit float64
	// PoolConnections is how many connections exercise 7's largest board
	// opens (pool-sizing.toml's pool of 64, and its set-up connection).
	PoolConnections int
	// TrialRole creates and drops a fleet role, as exercise 10's fleet
	// will, when the role's attributes allow it.
	TrialRole bool
	// Timeout bounds each check.
	Timeout time.Duration
}

// DefaultDSN is the PostgreSQL the experiment files use without BBS_PG_DSN.
const DefaultDSN = "postgres://root@127.0.0.1:5432/test?sslmode=disable"

// Default is the workshop's configuration: the repository around the
// working directory, BBS_PG_DSN (or DefaultDSN), this OS.
func Default() Config {
	dsn := os.Getenv("BBS_PG_DSN")
	if dsn == "" {
		dsn = DefaultDSN
	}
	return Config{
		Root: findRoot(), DSN: dsn, GOOS: runtime.GOOS, LookPath: exec.LookPath,
		BoardPorts: []int{8080, 6060}, FleetPorts: []int{8080, 8404, 6061, 6062},
		Window: 1500 * time.Millisecond, BusyLimit: 0.15, StealLimit: 0.05,
		PoolConnections: 65, TrialRole: true, Timeout: 15 * time.Second,
	}
}

// A Line is an exercise's verdict.
type Line struct {
	Exercise int    `json:"exercise"`
	Title    string `json:"title"`
	Core     bool   `json:"core"`
	Ready    bool   `json:"ready"`
	// Missing and Warnings are the checks that stop it, and those that
	// make its figures differ.
	Missing  []Check `json:"missing,omitempty"`
	Warnings []Check `json:"warnings,omitempty"`
}

// A Report is what Run read and what it means for each exercise.
type Report struct {
	Checks    []Check       `json:"checks"`
	Exercises []Line        `json:"exercises"`
	Took      time.Duration `json:"took_ns"`
}

// CoreReady reports whether every core exercise can run.
func (r Report) CoreReady() bool {
	for _, l := range r.Exercises {
		if l.Core && !l.Ready {
			return false
		}
	}
	return true
}

// WriteJSON writes r as indented JSON.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// Run checks this machine against c: the other work on the machine first,
// alone (the other checks run programs), then the rest at once, each
// bounded by c.Timeout.
func Run(ctx context.Context, c Config) Report {
	start := time.Now()
	checks := []Check{c.checkLoad(ctx)}
	type group func(ctx context.Context) []Check
	groups := []group{
		c.checkGo,
		func(context.Context) []Check { return []Check{c.checkCPUs()} },
		func(context.Context) []Check { return c.checkPorts() },
		func(ctx context.Context) []Check { return []Check{c.checkTool(ctx, "curl")} },
		func(ctx context.Context) []Check { return []Check{c.checkTool(ctx, "psql")} },
		func(ctx context.Context) []Check { return []Check{c.checkTool(ctx, "haproxy")} },
		func(ctx context.Context) []Check { return []Check{c.checkTool(ctx, "pgbouncer")} },
		func(context.Context) []Check { return []Check{c.checkBrowser()} },
		c.checkPostgres,
	}
	out := make([][]Check, len(groups))
	var wg sync.WaitGroup
	for i, g := range groups {
		wg.Go(func() {
			gctx, cancel := context.WithTimeout(ctx, c.Timeout)
			defer cancel()
			out[i] = g(gctx)
		})
	}
	wg.Wait()
	for _, o := range out {
		checks = append(checks, o...)
	}
	r := Report{Checks: checks, Took: time.Since(start)}
	for _, e := range c.Exercises() {
		r.Exercises = append(r.Exercises, judge(e, checks))
	}
	return r
}

// judge decides e from the checks it needs; a need no check answered is
// missing (a bug here, said so rather than called ready).
func judge(e Exercise, checks []Check) Line {
	l := Line{Exercise: e.N, Title: e.Title, Core: e.Core}
	for _, n := range e.Needs {
		i := slices.IndexFunc(checks, func(c Check) bool { return c.Name == n })
		switch {
		case i < 0:
			l.Missing = append(l.Missing, Check{Name: n, Status: Missing, Fact: "not checked"})
		case checks[i].Status == Missing:
			l.Missing = append(l.Missing, checks[i])
		case checks[i].Status == Warn:
			l.Warnings = append(l.Warnings, checks[i])
		}
	}
	l.Ready = len(l.Missing) == 0
	return l
}
