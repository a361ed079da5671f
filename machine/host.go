package machine

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
)

// HostInfo is what a result needs to say on what it ran: the machine (CPU
// model and count, kernel, OS), the Go runtime and the lab's build. A fact
// that cannot be read cheaply on this system is left empty (and omitted
// from the JSON) rather than guessed.
type HostInfo struct {
	OS   string `json:"os"`   // runtime.GOOS
	Arch string `json:"arch"` // runtime.GOARCH
	// Kernel is the kernel's name and release, as `uname -sr` prints them
	// (Linux: /proc/sys/kernel/ostype and osrelease).
	Kernel string `json:"kernel,omitempty"`
	// Distro is PRETTY_NAME of /etc/os-release (Linux).
	Distro string `json:"distro,omitempty"`
	// CPUModel is the first processor's model in /proc/cpuinfo.
	CPUModel string `json:"cpu_model,omitempty"`
	// LogicalCPUs counts the machine's logical CPUs (processor entries in
	// /proc/cpuinfo; elsewhere runtime.NumCPU). UsableCPUs is how many of
	// them this process may run on (runtime.NumCPU: its affinity mask).
	LogicalCPUs int    `json:"logical_cpus"`
	UsableCPUs  int    `json:"usable_cpus"`
	GOMAXPROCS  int    `json:"gomaxprocs"`
	GoVersion   string `json:"go_version"`
	Build       Build  `json:"build"`
}

// Build is the lab's version as the Go toolchain stamped it into the
// binary (runtime/debug.ReadBuildInfo).
type Build struct {
	// Module is the main module's path.
	Module string `json:"module,omitempty"`
	// Version is the module version when one was stamped (a tag or a
	// pseudo-version), else "devel" followed by the VCS revision (12
	// digits, "+dirty" when the checkout had changes), or
	// "devel (no VCS info)" when the build recorded none (go run, go test,
	// -buildvcs=false, or no checkout).
	Version string `json:"version"`
	// Revision, Time and Modified are the vcs.revision, vcs.time and
	// vcs.modified settings, when stamped.
	Revision string `json:"revision,omitempty"`
	Time     string `json:"vcs_time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
}

// Host reads the facts of this machine, runtime and build.
func Host() HostInfo { return procRoot("/proc").host("/etc/os-release") }

func (r procRoot) host(osRelease string) HostInfo {
	h := HostInfo{
		OS: runtime.GOOS, Arch: runtime.GOARCH,
		UsableCPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		GoVersion: runtime.Version(),
	}
	if b, err := r.read("cpuinfo"); err == nil {
		h.CPUModel, h.LogicalCPUs = ParseCPUInfo(bytes.NewReader(b))
	}
	if h.LogicalCPUs == 0 {
		h.LogicalCPUs = runtime.NumCPU()
	}
	typ, errT := r.read("sys/kernel/ostype")
	rel, errR := r.read("sys/kernel/osrelease")
	if errT == nil && errR == nil {
		h.Kernel = strings.TrimSpace(string(typ)) + " " + strings.TrimSpace(string(rel))
	}
	if b, err := os.ReadFile(osRelease); err == nil {
		h.Distro = ParseOSRelease(bytes.NewReader(b))
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		h.Build = buildOf(bi)
	} else {
		h.Build = Build{Version: "devel (no VCS info)"}
	}
	return h
}

// ParseCPUInfo reads /proc/cpuinfo: the model of the first processor and
// the number of processor entries. x86 names the model in "model name";
// arm64 kernels print no model name, so "Model" (a board's name),
// "Hardware" or the "CPU part" number stands in (empty when none is).
func ParseCPUInfo(r io.Reader) (model string, count int) {
	// Earlier names win: "model name", then "Model", "Hardware", "CPU part".
	names := []string{"model name", "Model", "Hardware", "CPU part"}
	found := make([]string, len(names))
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if k == "processor" {
			count++
			continue
		}
		if i := slices.Index(names, k); i >= 0 && found[i] == "" && v != "" {
			found[i] = v
		}
	}
	if found[3] != "" {
		found[3] = "CPU part " + found[3]
	}
	for _, m := range found {
		if m != "" {
			return m, count
		}
	}
	return "", count
}

// ParseOSRelease returns PRETTY_NAME of an os-release file (empty if
// absent), its quotes removed.
func ParseOSRelease(r io.Reader) string {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "PRETTY_NAME="); ok {
			return strings.Trim(v, `"'`)
		}
	}
	return ""
}

// buildOf reads the module version and VCS settings of bi.
func buildOf(bi *debug.BuildInfo) Build {
	b := Build{Module: bi.Main.Path}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	switch v := bi.Main.Version; {
	case v != "" && v != "(devel)":
		b.Version = v // go build since Go 1.24 stamps a pseudo-version from VCS
	case b.Revision != "":
		b.Version = "devel " + short(b.Revision)
		if b.Modified {
			b.Version += "+dirty"
		}
	default:
		b.Version = "devel (no VCS info)"
	}
	return b
}

func short(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}

// Differences names the facts in which a and b differ (CPU model, logical
// CPUs, kernel, OS, Go version, GOMAXPROCS, lab version), each as
// "name: a vs b"; none when they ran alike.
func (a HostInfo) Differences(b HostInfo) []string {
	var out []string
	add := func(name string, x, y any) {
		if fmt.Sprint(x) != fmt.Sprint(y) {
			out = append(out, fmt.Sprintf("%s: %v vs %v", name, orUnknown(x), orUnknown(y)))
		}
	}
	add("CPU model", a.CPUModel, b.CPUModel)
	add("logical CPUs", a.LogicalCPUs, b.LogicalCPUs)
	add("usable CPUs", a.UsableCPUs, b.UsableCPUs)
	add("kernel", a.Kernel, b.Kernel)
	add("OS", a.OS+"/"+a.Arch, b.OS+"/"+b.Arch)
	add("distro", a.Distro, b.Distro)
	add("Go", a.GoVersion, b.GoVersion)
	add("GOMAXPROCS", a.GOMAXPROCS, b.GOMAXPROCS)
	add("lab version", a.Build.Version, b.Build.Version)
	return out
}

func orUnknown(v any) any {
	if s, ok := v.(string); ok && s == "" {
		return "unknown"
	}
	return v
}

// String is h on one line, for reports: CPU model and counts, kernel,
// distribution, Go and the lab's version.
func (h HostInfo) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %d logical CPUs (%d usable, GOMAXPROCS %d), %s/%s", orUnknown(h.CPUModel), h.LogicalCPUs, h.UsableCPUs, h.GOMAXPROCS, h.OS, h.Arch)
	if h.Kernel != "" {
		b.WriteString(", " + h.Kernel)
	}
	if h.Distro != "" {
		b.WriteString(", " + h.Distro)
	}
	fmt.Fprintf(&b, ", %s, lab %s", h.GoVersion, h.Build.Version)
	return b.String()
}
