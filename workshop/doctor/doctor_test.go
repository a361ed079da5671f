package doctor

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// without is a LookPath that finds nothing named in missing (nor their
// /usr/sbin copies) and the rest as exec.LookPath does.
func without(missing ...string) func(string) (string, error) {
	return func(name string) (string, error) {
		if slices.Contains(missing, filepath.Base(name)) {
			return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
		}
		return exec.LookPath(name)
	}
}

// quick is Default with a short window and no PostgreSQL trial, for tests.
func quick() Config {
	c := Default()
	c.Window, c.TrialRole, c.Timeout = 50*time.Millisecond, false, 20*time.Second
	c.DSN = "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=2"
	return c
}

func line(t *testing.T, r Report, n int) Line {
	t.Helper()
	i := slices.IndexFunc(r.Exercises, func(l Line) bool { return l.Exercise == n })
	if i < 0 {
		t.Fatalf("no line for exercise %d", n)
	}
	return r.Exercises[i]
}

func check(t *testing.T, checks []Check, name string) Check {
	t.Helper()
	i := slices.IndexFunc(checks, func(c Check) bool { return c.Name == name })
	if i < 0 {
		t.Fatalf("no check %q in %v", name, checks)
	}
	return checks[i]
}

// TestMissingTool hides curl and HAProxy from the lookup: their checks are
// missing with the install command for the OS; exercise 0 (curl) and 10
// (both) are not ready and say the fix, exercise 3 (neither) is, and the
// core exercises cannot all run.
func TestMissingTool(t *testing.T) {
	c := quick()
	c.GOOS = "linux"
	c.LookPath = without("curl", "haproxy")
	r := Run(context.Background(), c)
	hap := check(t, r.Checks, "haproxy")
	if hap.Status != Missing || !strings.Contains(hap.Fix, "sudo apt-get install -y haproxy") || !strings.Contains(hap.Fix, "service haproxy stop") {
		t.Errorf("haproxy check %+v; want missing, with apt-get install and service stop", hap)
	}
	v := line(t, r, 0).verdict()
	if !strings.HasPrefix(v, "not ready: ") || !strings.Contains(v, "curl: not installed; fix: sudo apt-get install -y curl") {
		t.Errorf("exercise 0: %q; want not ready with curl's fix", v)
	}
	if v := line(t, r, 10).verdict(); !strings.Contains(v, "haproxy: not installed; fix: sudo apt-get install -y haproxy") || !strings.Contains(v, "curl:") {
		t.Errorf("exercise 10: %q; want haproxy's and curl's fixes", v)
	}
	if l := line(t, r, 3); !l.Ready {
		t.Errorf("exercise 3 needs neither curl nor HAProxy, yet: %s", l.verdict())
	}
	if r.CoreReady() {
		t.Error("CoreReady with curl missing")
	}
	c.GOOS = "darwin"
	if ch := c.checkTool(context.Background(), "pgbouncer"); ch.Status != OK {
		t.Errorf("pgbouncer, not hidden: %+v", ch)
	}
	c.LookPath = without("pgbouncer")
	if ch := c.checkTool(context.Background(), "pgbouncer"); ch.Status != Missing || !strings.HasPrefix(ch.Fix, "brew install pgbouncer") {
		t.Errorf("pgbouncer hidden on macOS: %+v; want missing, brew install pgbouncer", ch)
	}
}

// TestMissingToolInPath looks curl up in an empty PATH, the real lookup.
func TestMissingToolInPath(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	c := quick()
	if ch := c.checkTool(context.Background(), "curl"); ch.Status != Missing || ch.Fact != "not installed" {
		t.Errorf("curl with an empty PATH: %+v; want missing", ch)
	}
	if ch := c.checkGo(context.Background())[0]; ch.Status != Missing || !strings.Contains(ch.Fix, "https://go.dev/dl/") {
		t.Errorf("go with an empty PATH: %+v; want missing with where to get it", ch)
	}
}

// TestBusyPort listens on a port the board is said to use: its check is
// missing and names how to find the listener; exercise 0 is not ready
// because of it, exercise 3 (which uses free ports) is unaffected, and
// once the listener closes the port is free.
func TestBusyPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	c := quick()
	c.GOOS, c.BoardPorts, c.FleetPorts = "linux", []int{port}, nil
	name := fmt.Sprintf("port %d", port)
	ch := check(t, c.checkPorts(), name)
	if ch.Status != Missing || !strings.Contains(ch.Fix, fmt.Sprintf("ss -ltnp 'sport = :%d'", port)) {
		t.Errorf("busy port: %+v; want missing, naming ss for it", ch)
	}
	checks := []Check{ch, {Name: "go"}, {Name: "cgo"}, {Name: "load"}, {Name: "curl"}, {Name: "cpus"}}
	ex := c.Exercises()
	if l0 := judge(ex[0], checks); l0.Ready || !strings.Contains(l0.verdict(), name+": in use") {
		t.Errorf("exercise 0 with %s busy: %s", name, l0.verdict())
	}
	if l3 := judge(ex[3], checks); !l3.Ready {
		t.Errorf("exercise 3 with %s busy: %s", name, l3.verdict())
	}
	l.Close()
	if ch := check(t, c.checkPorts(), name); ch.Status != OK {
		t.Errorf("the port once closed: %+v; want ok", ch)
	}
}

// TestJudge: a warning leaves an exercise ready and is named; a need no
// check answered is missing, not ready by default.
func TestJudge(t *testing.T) {
	e := Exercise{N: 1, Needs: []string{"go", "load"}}
	l := judge(e, []Check{{Name: "go"}, {Name: "load", Status: Warn, Fact: "busy"}})
	if !l.Ready || l.verdict() != "ready (its figures will differ: load, above)" {
		t.Errorf("with a warning: %+v %q", l, l.verdict())
	}
	if l := judge(e, []Check{{Name: "go"}}); l.Ready || l.verdict() != "not ready: load: not checked" {
		t.Errorf("with a need unchecked: %q", l.verdict())
	}
}

// TestConnections: too few free connections for exercise 7 gives the
// max_connections that makes exactly enough room.
func TestConnections(t *testing.T) {
	f := pgFacts{user: "bbs", maxConns: 50, inUse: 5, reserved: 3}
	ch := f.connsCheck(65)
	m := regexp.MustCompile(`max_connections = (\d+);`).FindStringSubmatch(ch.Fix)
	if ch.Status != Missing || m == nil {
		t.Fatalf("%+v; want missing with ALTER SYSTEM SET max_connections", ch)
	}
	if n, _ := strconv.Atoi(m[1]); n-f.inUse-f.reserved != 65 {
		t.Errorf("max_connections = %d leaves %d; want 65", n, n-f.inUse-f.reserved)
	}
	f.maxConns = 100
	if ch := f.connsCheck(65); ch.Status != OK {
		t.Errorf("92 free for 65: %+v", ch)
	}
	f.super, f.maxConns = true, 70 // a superuser may use the reserved ones
	if ch := f.connsCheck(65); ch.Status != OK {
		t.Errorf("a superuser with 65 free: %+v", ch)
	}
}

func TestIdent(t *testing.T) {
	for in, want := range map[string]string{"bbs": "bbs", "user": `"user"`, "Bob": `"Bob"`, "a-b": `"a-b"`, "bbslab_x1": "bbslab_x1"} {
		if got := ident(in); got != want {
			t.Errorf("ident(%q) = %s; want %s", in, got, want)
		}
	}
}

// TestExercisesMatchPage holds the doctor's exercises to the workshop
// pages' headings ("## N. ..."), English and Japanese.
func TestExercisesMatchPage(t *testing.T) {
	var want []int
	for _, e := range Default().Exercises() {
		want = append(want, e.N)
	}
	heading := regexp.MustCompile(`^## (\d+)\. `)
	for _, page := range []string{"workshop.md", "workshop.ja.md"} {
		f, err := os.Open(filepath.Join("..", "..", "docs", page))
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if m := heading.FindStringSubmatch(sc.Text()); m != nil {
				n, _ := strconv.Atoi(m[1])
				got = append(got, n)
			}
		}
		f.Close()
		if !slices.Equal(got, want) {
			t.Errorf("docs/%s has exercises %v; the doctor checks %v", page, got, want)
		}
	}
}

// TestReportJSON: the JSON holds every check and exercise, statuses as
// words, and reads back.
func TestReportJSON(t *testing.T) {
	r := Report{Checks: []Check{{Name: "go", Fact: "go1.26"}, {Name: "curl", Status: Missing, Fix: "x"}},
		Exercises: []Line{judge(Exercise{N: 0, Core: true, Needs: []string{"go", "curl"}}, []Check{{Name: "go"}, {Name: "curl", Status: Missing}})}}
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"status": "missing"`) {
		t.Errorf("JSON without the status as a word:\n%s", b.String())
	}
	var back Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Checks[1].Status != Missing || back.Exercises[0].Ready || back.CoreReady() {
		t.Errorf("read back: %+v", back)
	}
	var s Status
	if err := s.UnmarshalText([]byte("bad")); err == nil {
		t.Error("status bad read without an error")
	}
}
