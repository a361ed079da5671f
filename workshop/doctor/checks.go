package doctor

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"go/version"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"bbslab/internal/child"
	"bbslab/machine"
)

// findRoot is the nearest directory at or above the working directory
// holding a go.mod; "" when none does.
func findRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// modGo reads the go directive of root's go.mod ("1.26.8").
func modGo(root string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", fmt.Errorf("no go.mod: run the doctor from the repository's root (%v)", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "go "); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", fmt.Errorf("%s/go.mod has no go directive", root)
}

// install is the command that installs a program on c.GOOS: apt's package
// deb (Debian, Ubuntu, WSL2) or Homebrew's brew.
func (c Config) install(deb, brew string) string {
	switch c.GOOS {
	case "darwin":
		return "brew install " + brew
	case "windows":
		return "in WSL2 (docs/workshop.md, On macOS and Windows): sudo apt-get install -y " + deb
	}
	return "sudo apt-get install -y " + deb + " (Debian, Ubuntu)"
}

// run runs a program found by c.LookPath and returns its output, trimmed.
func (c Config) run(ctx context.Context, dir string, name string, args ...string) (string, error) {
	path, err := c.LookPath(name)
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		err = fmt.Errorf("%s did not answer in time: %w", name, ctx.Err())
	}
	return strings.TrimSpace(string(out)), err
}

// firstLine is s's first line, cut to 80 characters at a space (curl
// lists its libraries after its version).
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	l = strings.TrimSpace(l)
	if len(l) > 80 {
		if i := strings.LastIndexByte(l[:80], ' '); i > 0 {
			l = l[:i] + " ..."
		}
	}
	return l
}

// checkGo reads the Go the exercises' go run will use (go env in the
// repository, so GOTOOLCHAIN's switch counts) against go.mod's, and cgo:
// CGO_ENABLED and a C program built by go env CC.
func (c Config) checkGo(ctx context.Context) []Check {
	g := Check{Name: "go"}
	cg := Check{Name: "cgo", Status: Missing, Fact: "not read: go env did not answer (see go)",
		Fix: c.install("gcc", "gcc") + ", then check again"}
	if c.GOOS == "darwin" {
		cg.Fix = "xcode-select --install (Xcode's command-line tools)"
	}
	want, err := modGo(c.Root)
	if err != nil {
		g.Status, g.Fact, g.Fix = Missing, err.Error(), "cd to the repository's root"
		return []Check{g, cg}
	}
	out, err := c.run(ctx, c.Root, "go", "env", "GOVERSION", "CGO_ENABLED", "CC")
	f := strings.Split(out, "\n")
	if err != nil || len(f) != 3 {
		g.Status, g.Fact = Missing, fmt.Sprintf("go env: %v %s", err, firstLine(out))
		g.Fix = "install Go " + want + " or newer: https://go.dev/dl/"
		return []Check{g, cg}
	}
	have, _, _ := strings.Cut(f[0], " ")
	g.Fact = fmt.Sprintf("%s (go.mod asks go %s)", have, want)
	if version.IsValid(have) && version.Compare(have, "go"+want) < 0 {
		g.Status, g.Fix = Missing, "install Go "+want+" or newer (https://go.dev/dl/), or unset GOTOOLCHAIN=local so that go fetches it"
	}
	return []Check{g, c.checkCgo(ctx, f[1], strings.Fields(f[2]), cg)}
}

// checkCgo builds a C program with cc: what cgo, and so the board's
// SQLite, needs. cg is the check with its fix filled.
func (c Config) checkCgo(ctx context.Context, enabled string, cc []string, cg Check) Check {
	if len(cc) == 0 {
		cg.Fact = "go env CC is empty"
		return cg
	}
	path, err := c.LookPath(cc[0])
	if err != nil {
		cg.Fact = fmt.Sprintf("CGO_ENABLED=%s, no C compiler %q (%v)", enabled, cc[0], err)
		return cg
	}
	ver, _ := c.run(ctx, "", path, append(cc[1:], "--version")...)
	dir, err := os.MkdirTemp("", "doctor-cgo-")
	if err != nil {
		cg.Fact = err.Error()
		return cg
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "t.c")
	err = os.WriteFile(src, []byte("#include <stdio.h>\n#include <stdlib.h>\nint main(void) { return puts(\"\") < 0 ? EXIT_FAILURE : 0; }\n"), 0o644)
	if err == nil {
		var out string
		out, err = c.run(ctx, dir, path, append(cc[1:], "-o", filepath.Join(dir, "t"), src)...)
		if err != nil {
			err = fmt.Errorf("%v: %s", err, firstLine(out))
		}
	}
	cg.Fact = fmt.Sprintf("CGO_ENABLED=%s, CC %s: %s", enabled, strings.Join(cc, " "), firstLine(ver))
	switch {
	case err != nil:
		cg.Fact += ", cannot build a C program: " + err.Error()
	case enabled != "1":
		cg.Fact += ", builds C, but cgo is off"
		cg.Fix = "go env -w CGO_ENABLED=1 (or unset CGO_ENABLED)"
	default:
		cg.Fact += ", builds C"
		cg.Status, cg.Fix = OK, ""
	}
	return cg
}

// tools are the programs the doctor looks for, with their packages and
// how to read their version.
var tools = map[string]struct {
	deb, brew string
	version   []string
	sbin      bool // Debian installs it in /usr/sbin, often not in a user's PATH
}{
	"curl":      {"curl", "curl", []string{"--version"}, false},
	"psql":      {"postgresql-client", "libpq && brew link --force libpq", []string{"--version"}, false},
	"haproxy":   {"haproxy", "haproxy", []string{"-vv"}, true},
	"pgbouncer": {"pgbouncer", "pgbouncer", []string{"--version"}, true},
}

// checkTool looks for a program (in PATH, and /usr/sbin for the daemons as
// loadtest/fleet does) and reads its version; HAProxy must have its
// Prometheus exporter, which the fleet reads.
func (c Config) checkTool(ctx context.Context, name string) Check {
	t := tools[name]
	ch := Check{Name: name}
	path, err := c.LookPath(name)
	if err != nil && t.sbin {
		path, err = c.LookPath(filepath.Join("/usr/sbin", name))
	}
	if err != nil {
		ch.Status, ch.Fact, ch.Fix = Missing, "not installed", c.install(t.deb, t.brew)
		if t.sbin {
			ch.Fix += fmt.Sprintf(", then stop the service it starts (service %s stop): the fleet runs its own", name)
		}
		return ch
	}
	out, err := c.run(ctx, "", path, t.version...)
	ch.Fact = path + ": " + firstLine(out)
	switch {
	case err != nil:
		ch.Status, ch.Fact = Missing, fmt.Sprintf("%s: %s %v", path, strings.Join(t.version, " "), err)
		ch.Fix = c.install(t.deb, t.brew)
	case name == "haproxy" && !strings.Contains(out, "PROMEX"):
		ch.Status, ch.Fact = Missing, ch.Fact+", without the Prometheus exporter (no PROMEX in haproxy -vv)"
		ch.Fix = "install a HAProxy built with it (Debian's and Homebrew's are): " + c.install(t.deb, t.brew)
	}
	return ch
}

// checkBrowser looks for Chromium, which only the browser tests need (any
// browser opens the dashboards).
func (c Config) checkBrowser() Check {
	ch := Check{Name: "chromium"}
	if p := os.Getenv("BBS_CHROMIUM"); p != "" {
		ch.Fact = p + " (BBS_CHROMIUM)"
		return ch
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := c.LookPath(n); err == nil {
			ch.Fact = p + " (optional: the browser tests)"
			return ch
		}
	}
	ch.Status, ch.Fact = Warn, "none (optional: only the browser tests need it; any browser opens the dashboards)"
	ch.Fix = c.install("chromium", "--cask chromium")
	return ch
}

// checkPorts listens on each fixed port on 127.0.0.1, as the board, HAProxy
// and the replicas will.
func (c Config) checkPorts() []Check {
	var out []Check
	seen := map[int]bool{}
	for _, p := range append(append([]int(nil), c.BoardPorts...), c.FleetPorts...) {
		if seen[p] {
			continue
		}
		seen[p] = true
		ch := Check{Name: fmt.Sprintf("port %d", p), Fact: "free on 127.0.0.1"}
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			ch.Status, ch.Fact = Missing, "in use: "+err.Error()
			ch.Fix = fmt.Sprintf("stop what listens on it (a board left from an exercise: kill %%1); ss -ltnp 'sport = :%d' names it", p)
			if c.GOOS == "darwin" {
				ch.Fix = fmt.Sprintf("stop what listens on it (a board left from an exercise: kill %%1); lsof -nP -iTCP:%d -sTCP:LISTEN names it", p)
			}
		} else {
			l.Close()
		}
		out = append(out, ch)
	}
	return out
}

// checkCPUs counts the CPUs and pins a thread to CPU 0 and CPU 1 in turn
// through internal/child, as the experiments pin the board and the load
// tool.
func (c Config) checkCPUs() Check {
	n := runtime.NumCPU()
	ch := Check{Name: "cpus", Fact: fmt.Sprintf("%d usable CPUs", n)}
	if n < 2 {
		ch.Status = Warn
		ch.Fact += ": the experiments' board and load tool share one, and serve less than the page says"
	}
	cpus := []int{0, 1}[:min(n, 2)]
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var err error
	for _, cpu := range cpus {
		var restore func()
		if restore, err = child.PinThread([]int{cpu}); err != nil {
			break
		}
		restore()
	}
	if err != nil {
		ch.Status = Warn
		ch.Fact += fmt.Sprintf("; no pinning (%v): the experiments cap GOMAXPROCS instead and the OS chooses the cores (docs/workshop.md, On macOS and Windows)", err)
	} else {
		ch.Fact += fmt.Sprintf("; pinning a thread to CPU %s in turn works (the experiments put the board on CPU 0, the load tool on CPU 1)", child.CPUList(cpus))
	}
	return ch
}

// checkLoad reads the CPU counters over c.Window: the time other programs
// (and the hypervisor's steal) took of the CPUs while the doctor waited.
func (c Config) checkLoad(ctx context.Context) Check {
	ch := Check{Name: "load", Status: Warn}
	a, err := machine.ReadCounters()
	if err == nil {
		select {
		case <-time.After(c.Window):
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	var b machine.Counters
	if err == nil {
		b, err = machine.ReadCounters()
	}
	if err == nil && (a.Own == nil || b.Own == nil) {
		err = fmt.Errorf("the CPUs' counters of this process's CPUs cannot be read")
	}
	var sp machine.OwnSpan
	ok := false
	if err == nil {
		sp, ok = b.Own.Since(*a.Own)
	}
	if !ok {
		ch.Fact = fmt.Sprintf("cannot read the other work on the machine: %v", err)
		return ch
	}
	span := b.At.Sub(a.At).Seconds() * float64(len(sp.CPUs))
	busy := sp.InterferenceSeconds / span
	ch.Fact = fmt.Sprintf("other programs kept %.0f %% of %d CPUs busy over %.1f s", 100*busy, len(sp.CPUs), b.At.Sub(a.At).Seconds())
	steal := 0.0
	if sp.StealSeconds != nil {
		steal = *sp.StealSeconds / span
		ch.Fact += fmt.Sprintf(", the hypervisor stole %.0f %%", 100*steal)
	}
	if l, err := machine.ReadLoad(); err == nil {
		ch.Fact += fmt.Sprintf(", load average %.2f", l.One)
	}
	switch {
	case busy > c.BusyLimit:
		ch.Fix = "close what keeps the CPUs busy (builds, test runs, busy browser tabs) before measuring"
	case steal > c.StealLimit:
		ch.Fix = "a virtual machine whose host is busy: measure when it is quieter, or on another machine"
	default:
		ch.Status = OK
	}
	return ch
}
