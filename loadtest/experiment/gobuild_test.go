package experiment

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"bbslab/loadtest/outcome"
)

// tinyboardLine is what testdata/tinyboard prints when it starts.
var tinyboardLine = regexp.MustCompile(`tinyboard exe=(\S+) ppid=(\d+)`)

// runGoRunExperiment runs testdata/gorun.toml (two runs of a go run
// server) and returns, for each run, the program its server ran as and
// that program's parent.
func runGoRunExperiment(t *testing.T) (exes []string, ppids []int) {
	t.Helper()
	e, err := Load(filepath.Join("testdata", "gorun.toml"))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var log strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Run(ctx, e, Options{Target: fakeTarget, Out: out, Log: &log, NoPin: true})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, log.String())
	}
	for _, r := range res.Runs {
		if got := strings.Join(r.Command[:3], " "); got != "go run ./tinyboard" {
			t.Errorf("run %s: the report's command begins %q; want the file's go run ./tinyboard", r.Name, got)
		}
		b, err := os.ReadFile(filepath.Join(out, outcome.FileName(r.Name), "server.log"))
		if err != nil {
			t.Fatal(err)
		}
		m := tinyboardLine.FindStringSubmatch(string(b))
		if m == nil {
			t.Fatalf("run %s: the server printed no exe= line:\n%s", r.Name, b)
		}
		ppid, _ := strconv.Atoi(m[2])
		exes, ppids = append(exes, m[1]), append(ppids, ppid)
	}
	return exes, ppids
}

// TestGoRunBuiltOnce: a go run server is built once and each run starts
// the binary itself, a child of the runner, not of a go run.
func TestGoRunBuiltOnce(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	dir := t.TempDir()
	old := binFolder
	binFolder = func() (string, error) { return dir, nil }
	t.Cleanup(func() { binFolder = old })
	built.Clear()
	exes, ppids := runGoRunExperiment(t)
	if len(exes) != 2 || exes[0] != exes[1] {
		t.Fatalf("the runs' servers ran as %q; want one binary for both", exes)
	}
	if !strings.HasPrefix(exes[0], dir) || filepath.Base(exes[0]) != "tinyboard" {
		t.Errorf("the server ran as %s; want the tinyboard built under %s", exes[0], dir)
	}
	for i, p := range ppids {
		if p != os.Getpid() {
			t.Errorf("run %d's server's parent is %d; want this process (%d), not a go run", i+1, p, os.Getpid())
		}
	}
}

// TestGoRunWithoutGo: with no go on PATH the runner starts the program of
// the package's name beside itself, as a release bundle has it.
func TestGoRunWithoutGo(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: the bundle's board cannot be built here")
	}
	bundle := t.TempDir()
	build := exec.Command("go", "build", "-o", bundle+string(os.PathSeparator), "./testdata/tinyboard")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	old := besideExecutable
	besideExecutable = func() string { return bundle }
	t.Cleanup(func() { besideExecutable = old })
	t.Setenv("PATH", t.TempDir())
	built.Clear() // what the other test built is not this one's
	exes, ppids := runGoRunExperiment(t)
	for i, exe := range exes {
		if exe != filepath.Join(bundle, "tinyboard") || ppids[i] != os.Getpid() {
			t.Errorf("run %d's server ran as %s, child of %d; want %s, child of this process", i+1, exe, ppids[i], filepath.Join(bundle, "tinyboard"))
		}
	}
	if _, err := goRunBuilt([]string{"go", "run", "./nothere", "-x"}, "testdata"); err == nil || !strings.Contains(err.Error(), "go is not on PATH") {
		t.Errorf("goRunBuilt(a package with no binary beside) without go = %v; want an error saying go is not on PATH", err)
	}
}

func TestGoRunBuiltLeavesOtherCommands(t *testing.T) {
	for _, argv := range [][]string{{"./bbs", "-x"}, {"go", "version"}, {"go", "run", "-tags", "x", "./cmd/bbs"}} {
		got, err := goRunBuilt(argv, ".")
		if err != nil || strings.Join(got, " ") != strings.Join(argv, " ") {
			t.Errorf("goRunBuilt(%q) = %q, %v; want it as it is", argv, got, err)
		}
	}
}
