//go:build unix

package docs

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// walkTimesVar names a file: with it set, TestWorkshopCommands runs the
// exercises one after the other as the page gives them, with no cap, and
// writes each command's time there (the pages' timetable):
//
//	BBS_WALK_TIMES=$PWD/walk.tsv go test ./docs -run TestWorkshopCommands -timeout 60m
const walkTimesVar = "BBS_WALK_TIMES"

// walkLeftovers are what the walk may leave in the checkout: the boards'
// SQLite files (workshop-N.db when the exercises run side by side) and the
// experiments' report folders.
var walkLeftovers = []string{"workshop.db*", "workshop-*.db*", "out/*"}

// goRunProgram matches the page's go run of one of the repository's
// programs.
var goRunProgram = regexp.MustCompile(`go run \./cmd/(\w+)`)

// prepare makes every later go run of the page's programs start at once.
// Timed, as an attendee on the day: go run is run once for each so that
// the build cache holds its binary. Otherwise: the programs are built
// once, and a go on the commands' PATH runs "go run ./cmd/NAME" as that
// binary (and hands anything else to the real go), so that a dozen
// go runs side by side do not each check the sources on two cores.
func (w *walk) prepare(t *testing.T, exs []exercise) {
	t.Helper()
	programs := map[string]bool{}
	for _, ex := range exs {
		for _, c := range ex.Commands {
			for _, m := range goRunProgram.FindAllStringSubmatch(c.Line, -1) {
				programs[m[1]] = true
			}
		}
	}
	var pkgs []string
	for p := range programs {
		pkgs = append(pkgs, "./cmd/"+p)
	}
	if w.times != nil {
		// go tool pprof builds pprof the first time.
		pprof := exec.Command("go", "tool", "pprof", "-h")
		pprof.Dir = w.root
		_ = pprof.Run() // -h exits 0 or 2; the build is what counts
		for _, p := range pkgs {
			cmd := exec.Command("go", "run", p, "-h")
			cmd.Dir = w.root
			_ = cmd.Run()
		}
		return
	}
	// Built where the next walk of this checkout finds them, so that
	// go build links again only what changed.
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(w.root))
	bin, shim := filepath.Join(cache, "bbslab", "walk", hex.EncodeToString(sum[:6])), t.TempDir()
	began := time.Now()
	build := exec.Command("go", append([]string{"build", "-o", bin + string(os.PathSeparator)}, pkgs...)...)
	build.Dir = w.root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	pprof := exec.Command("go", "build", "-o", filepath.Join(bin, "pprof"), "cmd/pprof")
	if out, err := pprof.CombinedOutput(); err != nil {
		t.Fatalf("go build cmd/pprof: %v\n%s", err, out)
	}
	t.Logf("the programs built into %s in %.1f s", bin, time.Since(began).Seconds())
	realGo, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	// The experiments' go run ../../cmd/bbs and the runner's go build -o
	// of it (goRunBuilt in loadtest/experiment) get the walk's binary too.
	script := fmt.Sprintf(`#!/bin/sh
# The workshop walk's go: "go run .../cmd/NAME ARGS" runs the binary built
# for the walk, "go build -o OUT .../cmd/NAME" links it to OUT, "go tool
# pprof" runs the walk's pprof; anything else is the real go's.
bin=%q
case "$1" in
run)
  case "$2" in */cmd/*) b="$bin/${2##*/}"; if [ -x "$b" ]; then shift 2; exec "$b" "$@"; fi;; esac;;
build)
  if [ "$2" = -o ] && [ $# -eq 4 ]; then
    case "$4" in */cmd/*) b="$bin/${4##*/}"; if [ -x "$b" ]; then
      if [ "$b" -ef "$3" ]; then exit 0; fi
      mkdir -p "$(dirname "$3")" && ln -f "$b" "$3.walk$$" || exit 1
      mv -f "$3.walk$$" "$3" 2>/dev/null && exit 0
      # a build beside this one linked the same file there first: mv calls them the same file
      rm -f "$3.walk$$"; [ "$b" -ef "$3" ]; exit
    fi;; esac
  fi;;
tool)
  if [ "$2" = pprof ] && [ -x "$bin/pprof" ]; then shift 2; exec "$bin/pprof" "$@"; fi;;
esac
exec %q "$@"
`, bin, realGo)
	if err := os.WriteFile(filepath.Join(shim, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, kv := range w.env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			w.env[i] = "PATH=" + shim + string(os.PathListSeparator) + v
		}
	}
}

// walkPlan orders the exercises into lanes that run side by side, each
// lane's one after the other: the exercises on PostgreSQL share a lane
// (the pool-sizing boards and the fleet's role limit would crowd one
// server), every other exercise is a lane of its own. An exercise whose
// boards listen on the page's ports (8080, 6060) is marked to move
// (walkExercise.Move); the fleet keeps the page's ports, which no other
// exercise then uses.
func walkPlan(root string, exs []exercise) [][]walkExercise {
	var shared []walkExercise
	var lanes [][]walkExercise
	for _, ex := range exs {
		fleet, pg := false, false
		for _, c := range ex.Commands {
			fleet = fleet || strings.Contains(c.Line, "/cmd/loadtest fleet ")
			pg = pg || needsPostgres(root, c.Line)
		}
		we := walkExercise{exercise: ex, Move: !fleet}
		if pg || fleet {
			shared = append(shared, we)
		} else {
			lanes = append(lanes, []walkExercise{we})
		}
	}
	if len(shared) > 0 {
		lanes = append(lanes, shared)
	}
	// The longest first, so that the short ones fill the gaps.
	slices.SortStableFunc(lanes, func(a, b []walkExercise) int { return cmp.Compare(laneSeconds(b), laneSeconds(a)) })
	return lanes
}

// A walkExercise is an exercise as the walk runs it: Move gives it two
// free ports in place of the page's 8080 and 6060, chosen as it starts
// (the shorter the time from choosing a port to binding it, the less
// another program takes it first), and a SQLite file of its own.
type walkExercise struct {
	exercise
	Move bool
}

// moved returns the exercise on free ports (localize).
func (we walkExercise) moved() (exercise, error) {
	if !we.Move {
		return we.exercise, nil
	}
	var ports []string
	for range 2 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return exercise{}, err
		}
		defer l.Close() // held until both are chosen
		_, port, _ := net.SplitHostPort(l.Addr().String())
		ports = append(ports, port)
	}
	number, _, _ := strings.Cut(we.Title, ".")
	return localize(we.exercise, ports[0], ports[1], number), nil
}

// walkSlots is how many lanes run at once: on two cores more leave a
// board's admin listener too slow for calibrate's stats reads.
const walkSlots = 6

// durationFlag is a command's -duration; cappedTool a tool the cap stops;
// loadRun a load tool's run.
var (
	durationFlag = regexp.MustCompile(`\s-duration[ =](\d+)s\b`)
	cappedTool   = regexp.MustCompile(`/cmd/loadtest (experiment|calibrate|tune|disturb) `)
	loadRun      = regexp.MustCompile(`/cmd/loadtest run `)
)

// quickRun is how long a foreground load run of the page lasts when the
// exercises run side by side: the page's runs of 4 to 10 s end by
// themselves and print their summary (and the SLO's verdict) at any
// length, and what exercise 10 reads of them is counts that add up at
// any length. The timetable walk (BBS_WALK_TIMES) runs them as written.
const quickRun = 3

// quick shortens each foreground load run of ex to quickRun seconds.
func quick(ex exercise) exercise {
	out := exercise{Title: ex.Title}
	for _, c := range ex.Commands {
		if !c.Background && loadRun.MatchString(c.Line) {
			c.Line = durationFlag.ReplaceAllStringFunc(c.Line, func(m string) string {
				if n, _ := strconv.Atoi(durationFlag.FindStringSubmatch(m)[1]); n <= quickRun {
					return m
				}
				return fmt.Sprintf(" -duration %ds", quickRun)
			})
		}
		out.Commands = append(out.Commands, c)
	}
	return out
}

// laneSeconds guesses how long a lane takes: a command the cap stops
// (an experiment, a calibration, a tuning, disturb) the cap, a run its
// -duration (quick), anything else a second.
func laneSeconds(lane []walkExercise) float64 {
	total := 0.0
	for _, ex := range lane {
		for _, c := range quick(ex.exercise).Commands {
			d := 1.0
			switch m := durationFlag.FindStringSubmatch(c.Line); {
			case c.Background:
			case cappedTool.MatchString(c.Line):
				d = commandCap.Seconds()
			case m != nil:
				n, _ := strconv.Atoi(m[1])
				d = min(float64(n)+1, commandCap.Seconds())
			}
			total += d
		}
	}
	return total
}

// localize moves an exercise's commands to the board port and admin port
// given and its SQLite file to workshop-N.db.
func localize(ex exercise, port, admin, n string) exercise {
	out := exercise{Title: ex.Title}
	for _, c := range ex.Commands {
		line := strings.ReplaceAll(c.Line, "127.0.0.1:8080", "127.0.0.1:"+port)
		line = strings.ReplaceAll(line, "127.0.0.1:6060", "127.0.0.1:"+admin)
		line = strings.ReplaceAll(line, "workshop.db", "workshop-"+n+".db")
		if strings.Contains(line, "go run ./cmd/bbs") && !strings.Contains(line, " -addr") {
			line += " -addr 127.0.0.1:" + port + " -admin-addr 127.0.0.1:" + admin
		}
		out.Commands = append(out.Commands, workshopCommand{Line: line, Background: c.Background})
	}
	return out
}

func TestQuick(t *testing.T) {
	ex := exercise{Title: "8. x", Commands: []workshopCommand{
		{"go run ./cmd/loadtest run -url 'http://127.0.0.1:8080/bbs' -clients 20 -duration 10s -slo 'p99<10ms'", false},
		{"go run ./cmd/loadtest run -url 'http://127.0.0.1:8080/bbs' -duration 60s -live 127.0.0.1:0", true},
		{"go run ./cmd/loadtest run -url 'http://127.0.0.1:8080/bbs' -duration=2s", false},
		{"go run ./cmd/loadtest tune -url 'http://127.0.0.1:8080/bbs' -duration 20s", false},
	}}
	got := quick(ex)
	want := []string{
		"go run ./cmd/loadtest run -url 'http://127.0.0.1:8080/bbs' -clients 20 -duration 3s -slo 'p99<10ms'",
		ex.Commands[1].Line, // in the background: it runs until its exercise ends
		ex.Commands[2].Line, // short already
		ex.Commands[3].Line, // not a run: the cap stops it
	}
	for i, c := range got.Commands {
		if c.Line != want[i] || c.Background != ex.Commands[i].Background {
			t.Errorf("quick: command %d = %q (background %v); want %q", i, c.Line, c.Background, want[i])
		}
	}
}

func TestLocalize(t *testing.T) {
	ex := exercise{Title: "4. x", Commands: []workshopCommand{
		{"go run ./cmd/bbs -dsn workshop.db -workers 10", true},
		{"curl -s http://127.0.0.1:6060/debug/goroutines", false},
		{"go run ./cmd/loadtest run -url 'http://127.0.0.1:8080/bbs?cmd=AllView' -live 127.0.0.1:0", false},
	}}
	got := localize(ex, "40001", "40002", "4")
	want := []string{
		"go run ./cmd/bbs -dsn workshop-4.db -workers 10 -addr 127.0.0.1:40001 -admin-addr 127.0.0.1:40002",
		"curl -s http://127.0.0.1:40002/debug/goroutines",
		"go run ./cmd/loadtest run -url 'http://127.0.0.1:40001/bbs?cmd=AllView' -live 127.0.0.1:0",
	}
	for i, c := range got.Commands {
		if c.Line != want[i] || c.Background != ex.Commands[i].Background {
			t.Errorf("localize: command %d = %q (background %v); want %q", i, c.Line, c.Background, want[i])
		}
	}
}

// walkTimes are the commands' times of a walk, in order; a command of ""
// is its exercise's whole time.
type walkTimes struct {
	mu   sync.Mutex
	rows []string
}

func (w *walkTimes) add(exercise, line string, background bool, d time.Duration) {
	if w == nil {
		return
	}
	if line == "" {
		line = "(the whole exercise)"
	} else if background {
		line += " & (until ready)"
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.rows = append(w.rows, fmt.Sprintf("%s\t%.1f\t%s", exercise, d.Seconds(), line))
}

func (w *walkTimes) write(path string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	head := fmt.Sprintf("# workshop walk, %s, no cap; exercise, seconds, command\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	return os.WriteFile(path, []byte(head+strings.Join(w.rows, "\n")+"\n"), 0o644)
}

// pprofRow is a row of go tool pprof -top: flat, flat%, sum%, cum, cum%,
// name; pprofShowing its "Showing nodes accounting for" line.
var (
	pprofRow     = regexp.MustCompile(`(?m)^\s*(-?[\d.]+\w*)\s+-?[\d.]+%\s+-?[\d.]+%\s+(-?[\d.]+\w*)\s+-?[\d.]+%\s+(\S+)\s*$`)
	pprofShowing = regexp.MustCompile(`(?m)^Showing nodes accounting for (-?[\d.]+\w*),`)
)

// pprofSeconds reads a pprof time ("14.23s", "850ms", "1.20mins").
func pprofSeconds(s string) (float64, error) {
	for _, u := range []struct {
		suffix string
		scale  float64
	}{{"mins", 60}, {"hrs", 3600}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {"s", 1}} {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			f, err := strconv.ParseFloat(v, 64)
			return f * u.scale, err
		}
	}
	return strconv.ParseFloat(s, 64)
}

// waitShare returns the cumulative time of the function named frame as a
// share of the samples shown, from a go tool pprof -top -cum output (0
// when the function is not there).
func waitShare(out, frame string) (float64, error) {
	m := pprofShowing.FindStringSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("no \"Showing nodes accounting for\" line in:\n%s", out)
	}
	total, err := pprofSeconds(m[1])
	if err != nil || total == 0 {
		return 0, fmt.Errorf("the samples shown: %q: %v", m[1], err)
	}
	for _, r := range pprofRow.FindAllStringSubmatch(out, -1) {
		if strings.HasSuffix(r[3], "."+frame) {
			cum, err := pprofSeconds(r[2])
			return cum / total, err
		}
	}
	return 0, nil
}

// checkProfiles checks exercise 4's promises: in graph 2's wall-clock
// profiles (the committed one and the attendee's) requests wait for a
// connection (acquireConn) a fifth of their time or more, in graph 3's
// live one far less, and the committed diff from graph 2 to graph 3 shows
// that wait gone (a negative acquireConn).
func checkProfiles(ran []ranCommand) error {
	shares := map[string]float64{}
	diff := ""
	for _, r := range ran {
		for _, f := range []string{"graph-2-10-workers-5-connections/profile-10clients-fgprof.pb.gz |", "g2-fgprof.pb.gz |", "g3-fgprof.pb.gz |"} {
			if strings.Contains(r.Line, f) && !strings.Contains(r.Line, "-diff_base") {
				v, err := waitShare(r.Output, "acquireConn")
				if err != nil {
					return fmt.Errorf("%s: %w", r.Line, err)
				}
				shares[f] = v
			}
		}
		if strings.Contains(r.Line, "-diff_base=docs/reports/article/graph-2") {
			diff = r.Output
		}
	}
	committed, g2, g3 := shares["graph-2-10-workers-5-connections/profile-10clients-fgprof.pb.gz |"], shares["g2-fgprof.pb.gz |"], shares["g3-fgprof.pb.gz |"]
	if len(shares) != 3 || committed < 0.2 || g2 < 0.2 || g3 > g2/2 {
		return fmt.Errorf("acquireConn's share of the request samples: committed graph 2 %.2f, live graph 2 %.2f, live graph 3 %.2f (%d read); want graph 2's 0.2 or more, graph 3's under half of it", committed, g2, g3, len(shares))
	}
	for _, r := range pprofRow.FindAllStringSubmatch(diff, -1) {
		if strings.HasSuffix(r[3], ".acquireConn") {
			if v, err := pprofSeconds(r[2]); err != nil || v >= 0 {
				return fmt.Errorf("the diff from graph 2 to graph 3 gives acquireConn %s; want it negative (the wait gone)", r[2])
			}
			return nil
		}
	}
	return fmt.Errorf("the diff from graph 2 to graph 3 has no acquireConn row:\n%s", diff)
}

func TestWaitShare(t *testing.T) {
	out := `Showing nodes accounting for 20.32s, 24.90% of 81.62s total
         0     0% 22.69%     11.61s 14.22%  bbslab/commands.inSQL
         0     0% 22.69%     7530ms  9.23%  bbslab/commands.acquireConn
`
	if v, err := waitShare(out, "acquireConn"); err != nil || v < 0.37 || v > 0.371 {
		t.Errorf("waitShare = %v, %v; want 7.53/20.32", v, err)
	}
	if v, err := waitShare(out, "waitForWorker"); err != nil || v != 0 {
		t.Errorf("waitShare(absent) = %v, %v; want 0", v, err)
	}
	if _, err := waitShare("nothing", "acquireConn"); err == nil {
		t.Error("waitShare(no Showing line) = nil error; want one")
	}
}
