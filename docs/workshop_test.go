//go:build unix

package docs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"bbslab/internal/testenv"
	"bbslab/loadtest/fleet"
)

// The workshop pages and how their commands are run: each ```sh block holds
// one command per line, run from the repository root with bash; a line
// ending in "&" starts a process that keeps running until the end of its
// exercise (the next "## " heading).
const (
	workshopEN = "workshop.md"
	workshopJA = "workshop.ja.md"

	// commandCap bounds a foreground command: one that runs longer is
	// interrupted with SIGINT and must then exit 130 (the tools write what
	// they measured when interrupted). 12 s lets each experiment start its
	// servers, validate and calibrate or load its first step, and the
	// page's runs end by themselves (with BBS_WALK_TIMES, the 10 s ones at
	// their length; they start in under a second: the walk builds its
	// programs once, prepare); at 20 s the four quick experiments alone
	// took 80 s of CI's ten minutes.
	commandCap = 12 * time.Second
	// readyTimeout bounds the wait for a background command's ready line.
	readyTimeout = 90 * time.Second
	// settle is how long a background command that prints no ready line is
	// given before the next command runs.
	settle = 3 * time.Second
	// stopGrace is how long a process group gets after SIGINT before SIGKILL.
	stopGrace = 15 * time.Second
)

// dropFlagsVar names a comma-separated list of value-taking flags (such as
// "-live") removed from every command before it runs: a local aid for
// checking the rest of the path while a flag the page uses is still being
// built elsewhere. CI never sets it.
const dropFlagsVar = "WORKSHOP_DROP_FLAGS"

// A workshopCommand is one line of a ```sh block.
type workshopCommand struct {
	Line       string // the command as bash runs it, without a trailing "&"
	Background bool   // the line ended in "&"
}

// An exercise is one "## " section of the page and its commands in order.
type exercise struct {
	Title    string
	Commands []workshopCommand
}

// parseWorkshop returns the exercises of a workshop page. Commands before
// the first "## " heading belong to an exercise with an empty title. A line
// continued with a trailing backslash is an error: one command per line.
func parseWorkshop(md string) ([]exercise, error) {
	var out []exercise
	cur := exercise{}
	inSh, fence := false, ""
	for i, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence, inSh = "", false
				continue
			}
			if !inSh || trimmed == "" || strings.HasPrefix(trimmed, "#") {
				continue
			}
			if strings.HasSuffix(trimmed, `\`) {
				return nil, fmt.Errorf("line %d: %q continues on the next line: write one command per line", i+1, trimmed)
			}
			c := workshopCommand{Line: trimmed}
			if strings.HasSuffix(trimmed, "&") && !strings.HasSuffix(trimmed, "&&") {
				c = workshopCommand{Line: strings.TrimSpace(strings.TrimSuffix(trimmed, "&")), Background: true}
			}
			cur.Commands = append(cur.Commands, c)
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
			info := strings.Fields(strings.TrimLeft(trimmed, fence[:1]))
			inSh = len(info) > 0 && info[0] == "sh"
		case strings.HasPrefix(line, "## "):
			if cur.Title != "" || len(cur.Commands) > 0 {
				out = append(out, cur)
			}
			cur = exercise{Title: strings.TrimSpace(strings.TrimPrefix(line, "## "))}
		}
	}
	if fence != "" {
		return nil, fmt.Errorf("a %s block is not closed", fence)
	}
	if cur.Title != "" || len(cur.Commands) > 0 {
		out = append(out, cur)
	}
	return out, nil
}

// commandsOf flattens the exercises' commands, marking background ones.
func commandsOf(exs []exercise) []string {
	var out []string
	for _, e := range exs {
		for _, c := range e.Commands {
			if c.Background {
				out = append(out, c.Line+" &")
			} else {
				out = append(out, c.Line)
			}
		}
	}
	return out
}

func readWorkshop(t *testing.T, name string) []exercise {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	exs, err := parseWorkshop(string(b))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(commandsOf(exs)) == 0 {
		t.Fatalf("%s: no commands in ```sh blocks", name)
	}
	return exs
}

// TestWorkshopTranslationSameCommands checks that the Japanese page runs
// exactly the commands of the English one, in the same order and in the
// same exercises, so that running the English page tests both.
func TestWorkshopTranslationSameCommands(t *testing.T) {
	en, ja := readWorkshop(t, workshopEN), readWorkshop(t, workshopJA)
	if got, want := commandsOf(ja), commandsOf(en); !reflect.DeepEqual(got, want) {
		t.Errorf("%s commands differ from %s:\n%s\nwant\n%s", workshopJA, workshopEN, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(en) != len(ja) {
		t.Fatalf("%s has %d exercises, %s %d", workshopEN, len(en), workshopJA, len(ja))
	}
	for i := range en {
		if !reflect.DeepEqual(en[i].Commands, ja[i].Commands) {
			t.Errorf("exercise %d (%q / %q): the commands differ", i, en[i].Title, ja[i].Title)
		}
	}
}

func TestParseWorkshop(t *testing.T) {
	md := strings.Join([]string{
		"# Title",
		"```sh",
		"echo preamble",
		"```",
		"## 0. One",
		"```sh",
		"# a comment",
		"server &",
		"",
		"a && b",
		"```",
		"```",
		"not sh",
		"```",
		"```go",
		"not sh either",
		"```",
		"## 1. Two",
		"text",
		"```sh",
		"c",
		"```",
	}, "\n")
	got, err := parseWorkshop(md)
	if err != nil {
		t.Fatal(err)
	}
	want := []exercise{
		{"", []workshopCommand{{"echo preamble", false}}},
		{"0. One", []workshopCommand{{"server", true}, {"a && b", false}}},
		{"1. Two", []workshopCommand{{"c", false}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseWorkshop = %+v; want %+v", got, want)
	}
	for _, bad := range []string{"```sh\nlong \\\n  line\n```", "```sh\nopen"} {
		if _, err := parseWorkshop(bad); err == nil {
			t.Errorf("parseWorkshop(%q) = nil error; want one", bad)
		}
	}
}

// goRunStatus matches the last line go run prints when its program exits
// non-zero: go run itself then exits 1, and this line carries the
// program's own code.
var goRunStatus = regexp.MustCompile(`(?m)^exit status (\d+)\s*\z`)

func TestExitStatus(t *testing.T) {
	for _, tc := range []struct {
		line   string
		rc     int
		output string
		want   int
	}{
		{"go run ./cmd/loadtest run -slo x", 1, "results\nexit status 3\n", 3},
		{"go run ./cmd/loadtest run", 1, "interrupted\nexit status 130\n", 130},
		{"go run ./cmd/loadtest run", 1, "build failed\n", 1},
		{"curl -s x", 1, "exit status 3\n", 1},
		{"go run ./cmd/bbs", 0, "", 0},
	} {
		if got := exitStatus(tc.line, tc.rc, tc.output); got != tc.want {
			t.Errorf("exitStatus(%q, %d, %q) = %d; want %d", tc.line, tc.rc, tc.output, got, tc.want)
		}
	}
}

// exitStatus is the exit code of the program a command ran: for go run,
// the code it reports on its last line.
func exitStatus(line string, rc int, output string) int {
	if rc == 1 && strings.HasPrefix(line, "go run ") {
		if m := goRunStatus.FindStringSubmatch(output); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil {
				return n
			}
		}
	}
	return rc
}

func TestDropFlags(t *testing.T) {
	line := "go run ./cmd/loadtest run -clients 5 -live 127.0.0.1:0 -live=off -lively x"
	if got, want := dropFlags(line, []string{"-live"}), "go run ./cmd/loadtest run -clients 5 -lively x"; got != want {
		t.Errorf("dropFlags = %q; want %q", got, want)
	}
}

// dropFlags removes each named flag and its value from line.
func dropFlags(line string, flags []string) string {
	for _, f := range flags {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		re := regexp.MustCompile(`\s` + regexp.QuoteMeta(f) + `(?:=\S+|\s+\S+)`)
		line = re.ReplaceAllString(line, "")
	}
	return line
}

// needsPostgres reports whether a command needs a PostgreSQL server: it
// names one, or it runs an experiment file whose runs use one (unless
// -runs picks some of them, which the page does only for SQLite runs).
func needsPostgres(root, line string) bool {
	if strings.Contains(strings.ToLower(line), "postgres") {
		return true
	}
	m := experimentFile.FindString(line)
	if m == "" || strings.Contains(line, " -runs ") {
		return false
	}
	b, err := os.ReadFile(filepath.Join(root, m))
	return err == nil && strings.Contains(string(b), `"-db", "postgres"`)
}

var experimentFile = regexp.MustCompile(`loadtest/experiments/[\w.-]+\.toml`)

// readyLine is what the board, the load tool and a fleet print when they
// are ready: "board: http://...", "live: http://..." and "one address
// (HAProxy): http://...".
var readyLine = regexp.MustCompile(`(?m)^(board: |live: |one address \(HAProxy\): )http://`)

// TestWorkshopCommands runs every command of docs/workshop.md, each
// exercise's in order as an attendee would, so that the path cannot rot:
// foreground commands must exit 0 (3 when they check an SLO; 130 when the
// cap interrupted them), curl commands must print something, background
// commands must become ready and keep running (or end with 0) until their
// exercise ends or a "kill %N" line stops them (then they must end with 0
// or 130); an exercise with an entry in exerciseChecks has its outputs
// checked too. The exercises run side by side, each on ports and a
// SQLite file of its own (walkPlan), each foreground load run shortened
// to a few seconds (quick); with BBS_WALK_TIMES set they run one
// after the other as the page gives them, with no cap, and each
// command's time is written to that file (the pages' timetable).
func TestWorkshopCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the workshop path takes about a minute")
	}
	for _, tool := range []string{"bash", "curl"} {
		_, err := exec.LookPath(tool)
		testenv.Need(t, err == nil, tool+" is not installed: the workshop's commands need it")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{"127.0.0.1:8080", "127.0.0.1:6060"} {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatalf("%s is taken (%v): the workshop's board uses it; stop what listens there and run again", addr, err)
		}
		l.Close()
	}
	exs := readWorkshop(t, workshopEN)
	timesFile := os.Getenv(walkTimesVar)

	// Leave the checkout as it was: the board's SQLite files and the
	// experiments' report folders are removed unless they were there.
	before := map[string]bool{}
	for _, pat := range walkLeftovers {
		m, _ := filepath.Glob(filepath.Join(root, pat))
		for _, p := range m {
			before[p] = true
		}
	}
	t.Cleanup(func() {
		for _, pat := range walkLeftovers {
			m, _ := filepath.Glob(filepath.Join(root, pat))
			for _, p := range m {
				if !before[p] {
					os.RemoveAll(p)
				}
			}
		}
		if !before[filepath.Join(root, "out")] {
			os.Remove(filepath.Join(root, "out")) // only if empty
		}
	})

	env := os.Environ()
	pgDSN := os.Getenv(testenv.PostgresDSNVar)
	if pgDSN != "" {
		env = append(env, "BBS_PG_DSN="+pgDSN)
	}
	var drop []string
	if v := os.Getenv(dropFlagsVar); v != "" {
		drop = strings.Split(v, ",")
		t.Logf("%s=%s: those flags are removed from the commands", dropFlagsVar, v)
	}

	w := &walk{root: root, env: env, drop: drop, cap: commandCap}
	if timesFile != "" {
		w.cap, w.times = 0, &walkTimes{}
	}
	// So that the cap measures the command, not the compiler or the linker.
	w.prepare(t, exs)
	if timesFile != "" {
		t.Logf("%s=%s: the exercises run one after the other with no cap; their times go to that file", walkTimesVar, timesFile)
		for _, ex := range exs {
			t.Run(ex.Title, func(t *testing.T) { w.exercise(t, ex) })
		}
		if err := w.times.write(timesFile); err != nil {
			t.Error(err)
		}
		return
	}
	var wg sync.WaitGroup
	slots := make(chan struct{}, walkSlots)
	for _, lane := range walkPlan(root, exs) {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			for _, we := range lane {
				t.Run(we.Title, func(t *testing.T) {
					ex, err := we.moved()
					if err != nil {
						t.Fatal(err)
					}
					w.exercise(t, quick(ex))
				})
			}
		})
	}
	wg.Wait()
}

// A walk is how TestWorkshopCommands runs the exercises: from root with
// env, the flags drop names removed, each foreground command capped at
// cap (0: none), the times recorded when times is set.
type walk struct {
	root  string
	env   []string
	drop  []string
	cap   time.Duration
	times *walkTimes
}

// exercise runs one exercise's commands in order and checks its outputs.
func (w *walk) exercise(t *testing.T, ex exercise) {
	jobs := jobTable{}
	var ran []ranCommand
	began := time.Now()
	for _, c := range ex.Commands {
		line := dropFlags(c.Line, w.drop)
		need(t, w.root, line) // skips the rest of the exercise without a server or a program
		start := time.Now()
		r := ranCommand{Line: line, Background: c.Background}
		switch {
		case killJob.MatchString(line):
			jobs.kill(t, line)
		case c.Background:
			jobs.add(startBackground(t, w.root, w.env, line))
		default:
			r.Output = runForeground(t, w.root, w.env, line, w.cap)
		}
		ran = append(ran, r)
		took := time.Since(start)
		t.Logf("%s (%.1f s)", line, took.Seconds())
		w.times.add(ex.Title, line, c.Background, took)
	}
	number, _, _ := strings.Cut(ex.Title, ".")
	if check := exerciseChecks[number]; check != nil {
		if err := check(ran); err != nil {
			t.Errorf("exercise %s's outputs: %v", number, err)
		}
	}
	w.times.add(ex.Title, "", false, time.Since(began))
}

// A ranCommand is a command of an exercise as the test ran it, with what
// it printed (a foreground command's).
type ranCommand struct {
	Line       string
	Background bool
	Output     string
}

// need skips the rest of the exercise (fails it under CI) when line needs
// what the machine lacks: a PostgreSQL server, psql, or the HAProxy and
// PgBouncer a fleet starts.
func need(t *testing.T, root, line string) {
	t.Helper()
	if needsPostgres(root, line) {
		testenv.PostgresDSN(t)
	}
	if strings.HasPrefix(line, "psql ") {
		_, err := exec.LookPath("psql")
		testenv.Need(t, err == nil, "psql is not installed: the exercise reads PostgreSQL's connections with it")
	}
	if strings.Contains(line, "/cmd/loadtest fleet ") {
		programs := []string{"haproxy"}
		if m := pgbouncerMode.FindStringSubmatch(line); m != nil && m[1] != "off" {
			programs = append(programs, "pgbouncer")
		}
		for _, p := range programs {
			_, err := fleet.Binary(p)
			testenv.Need(t, err == nil, fmt.Sprint(err))
		}
	}
}

var pgbouncerMode = regexp.MustCompile(`\s-pgbouncer[ =](\w+)`)

// killJob matches the page's "kill %N": stop the exercise's background
// command of job number N, as the shell that started it would.
var killJob = regexp.MustCompile(`^kill %(\d+)$`)

// A jobTable numbers an exercise's background commands as bash numbers its
// jobs: one more than the highest number still in use.
type jobTable map[int]*proc

func (j jobTable) add(p *proc) {
	n := 1
	for k := range j {
		n = max(n, k+1)
	}
	j[n] = p
}

// kill stops job N as Ctrl-C would (the tools handle SIGINT and SIGTERM
// alike) and checks that it ended cleanly: 0, or 130 for interrupted.
func (j jobTable) kill(t *testing.T, line string) {
	t.Helper()
	n, _ := strconv.Atoi(killJob.FindStringSubmatch(line)[1])
	p := j[n]
	if p == nil {
		t.Fatalf("%q: no background job %d in this exercise", line, n)
	}
	delete(j, n)
	p.killed = true
	p.stop()
	if code := exitStatus(p.line, p.rc, p.out.String()); code != 0 && code != 130 {
		t.Fatalf("%q: %q exited %d; want 0 or 130 (stopped cleanly)\n%s", line, p.line, code, tail(p.out.String()))
	}
	t.Logf("%q stopped %q; it printed (last lines):\n%s", line, p.line, tailN(p.out.String(), 4))
}

// A proc is a command started in its own process group, so that a signal
// reaches go run's child and the servers an experiment starts.
type proc struct {
	line   string
	cmd    *exec.Cmd
	out    *syncBuffer
	done   chan struct{}
	rc     int
	killed bool // stopped by the page's "kill %N", not by the exercise's end
}

func startProc(t *testing.T, root string, env []string, line string) *proc {
	t.Helper()
	p := &proc{line: line, cmd: exec.Command("bash", "-c", line), out: &syncBuffer{}, done: make(chan struct{})}
	p.cmd.Dir, p.cmd.Env = root, env
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %q: %v", line, err)
	}
	go func() {
		err := p.cmd.Wait()
		p.rc = 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			p.rc = ee.ExitCode() // -1 when a signal ended it
		} else if err != nil {
			p.rc = -1
		}
		close(p.done)
	}()
	return p
}

// signal sends sig to the command's whole process group.
func (p *proc) signal(sig syscall.Signal) {
	_ = syscall.Kill(-p.cmd.Process.Pid, sig)
}

// stop interrupts the group, waits for the leader, then kills what is left.
func (p *proc) stop() {
	p.signal(syscall.SIGINT)
	select {
	case <-p.done:
	case <-time.After(stopGrace):
	}
	p.signal(syscall.SIGKILL)
	<-p.done
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// runForeground runs line to its end (or the cap, unless it is 0) and
// returns what it printed.
func runForeground(t *testing.T, root string, env []string, line string, limit time.Duration) string {
	t.Helper()
	p := startProc(t, root, env, line)
	interrupted := false
	var capped <-chan time.Time
	if limit > 0 {
		capped = time.After(limit)
	}
	select {
	case <-p.done:
	case <-capped:
		interrupted = true
		p.stop()
	}
	p.signal(syscall.SIGKILL) // whatever the command left behind in its group
	out := p.out.String()
	code := exitStatus(line, p.rc, out)
	slo := strings.Contains(line, " -slo ") || strings.Contains(line, "/cmd/loadtest experiment ")
	switch {
	case interrupted && (code == 130 || code == 0 || code == 3 && slo):
		// 0 or 3: it ended by itself as the cap came.
	case interrupted:
		t.Fatalf("%q: interrupted after %v, then exited %d; want 130 (the tools write what they measured and exit 130)\n%s", line, limit, code, tail(out))
	case code == 0:
	case code == 3 && slo:
		// run and sweep check an -slo; every shipped experiment file has an
		// slo, checked at every step: exit 3 says one was missed.
		t.Logf("%q: exit 3, an SLO was missed (the page says it may be)", line)
	default:
		t.Fatalf("%q: exit %d; want 0\n%s", line, code, tail(out))
	}
	if strings.HasPrefix(line, "curl ") && strings.TrimSpace(out) == "" {
		t.Fatalf("%q printed nothing", line)
	}
	t.Logf("%q printed (last lines):\n%s", line, tailN(out, 8))
	return out
}

// startBackground starts line, waits until it is ready and stops it when
// the exercise ends: a board prints "board: http://", a load run with -live
// prints "live: http://", a fleet "one address (HAProxy): http://";
// anything else is given a moment to start.
func startBackground(t *testing.T, root string, env []string, line string) *proc {
	t.Helper()
	p := startProc(t, root, env, line)
	t.Cleanup(func() {
		if p.killed {
			return
		}
		if p.exited() {
			if code := exitStatus(line, p.rc, p.out.String()); code != 0 {
				t.Errorf("background %q ended before its exercise did, with exit %d\n%s", line, code, tail(p.out.String()))
			}
			p.signal(syscall.SIGKILL)
			return
		}
		p.stop()
	})
	wantReady := strings.Contains(line, "./cmd/bbs") || strings.Contains(line, " -live ")
	if !wantReady {
		select {
		case <-p.done:
		case <-time.After(settle):
		}
		if p.exited() {
			if code := exitStatus(line, p.rc, p.out.String()); code != 0 {
				t.Fatalf("background %q exited %d at once\n%s", line, code, tail(p.out.String()))
			}
		}
		return p
	}
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	for !readyLine.MatchString(p.out.String()) {
		select {
		case <-p.done:
			t.Fatalf("background %q exited %d before it was ready\n%s", line, exitStatus(line, p.rc, p.out.String()), tail(p.out.String()))
		case <-ctx.Done():
			t.Fatalf("background %q printed no ready line (board:, live: or one address (HAProxy): http://...) in %v\n%s", line, readyTimeout, tail(p.out.String()))
		case <-time.After(50 * time.Millisecond):
		}
	}
	return p
}

// tail returns a command's output for a failure message: its first lines
// (where a usage error is) and its last ones (where a result is).
func tail(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) <= 30 {
		return strings.Join(lines, "\n")
	}
	return strings.Join(lines[:5], "\n") + "\n...\n" + strings.Join(lines[len(lines)-25:], "\n")
}

// tailN returns the last n lines of out.
func tailN(out string, n int) string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// A syncBuffer is a bytes.Buffer that a command writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
