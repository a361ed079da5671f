package machine

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// Two processors of an x86 /proc/cpuinfo, abridged.
const cpuinfoX86 = `processor	: 0
vendor_id	: GenuineIntel
model name	: Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz
flags		: fpu vme

processor	: 1
vendor_id	: GenuineIntel
model name	: Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz
`

// An arm64 /proc/cpuinfo names no model: the CPU part stands in.
const cpuinfoARM = `processor	: 0
BogoMIPS	: 243.75
CPU implementer	: 0x41
CPU part	: 0xd0c

processor	: 1
CPU part	: 0xd0c

processor	: 2
CPU part	: 0xd0c
`

// A Raspberry Pi's kernel adds a Model line at the end.
const cpuinfoPi = cpuinfoARM + `
Hardware	: BCM2835
Model		: Raspberry Pi 4 Model B Rev 1.4
`

func TestParseCPUInfo(t *testing.T) {
	for _, tc := range []struct {
		name, in, model string
		n               int
	}{
		{"x86", cpuinfoX86, "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz", 2},
		{"arm64", cpuinfoARM, "CPU part 0xd0c", 3},
		{"pi", cpuinfoPi, "Raspberry Pi 4 Model B Rev 1.4", 3},
		{"empty", "", "", 0},
	} {
		model, n := ParseCPUInfo(strings.NewReader(tc.in))
		if model != tc.model || n != tc.n {
			t.Errorf("ParseCPUInfo(%s) = %q, %d; want %q, %d", tc.name, model, n, tc.model, tc.n)
		}
	}
}

func TestParseOSRelease(t *testing.T) {
	in := "NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\n"
	if got := ParseOSRelease(strings.NewReader(in)); got != "Debian GNU/Linux 12 (bookworm)" {
		t.Errorf("ParseOSRelease = %q", got)
	}
	if got := ParseOSRelease(strings.NewReader("ID=alpine\n")); got != "" {
		t.Errorf("ParseOSRelease without PRETTY_NAME = %q; want empty", got)
	}
}

func TestBuildOf(t *testing.T) {
	rev := "41014cc0045c295fcb07bcd18715adf45186e56d"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: "2026-12-01T20:51:08Z"}, {Key: "vcs.modified", Value: modified}}
	}
	for _, tc := range []struct {
		name    string
		version string
		set     []debug.BuildSetting
		want    string
	}{
		{"go build, stamped", "v0.0.0-20261201205108-41014cc0045c+dirty", vcs("true"), "v0.0.0-20261201205108-41014cc0045c+dirty"},
		{"devel with VCS", "(devel)", vcs("false"), "devel 41014cc0045c"},
		{"devel dirty", "(devel)", vcs("true"), "devel 41014cc0045c+dirty"},
		{"no VCS", "(devel)", nil, "devel (no VCS info)"},
	} {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "bbslab", Version: tc.version}, Settings: tc.set}
		b := buildOf(bi)
		if b.Version != tc.want || b.Module != "bbslab" {
			t.Errorf("buildOf(%s) = %+v; want version %q", tc.name, b, tc.want)
		}
		if tc.set != nil && b.Revision != rev {
			t.Errorf("buildOf(%s).Revision = %q; want %q", tc.name, b.Revision, rev)
		}
	}
}

func TestHostFromFixture(t *testing.T) {
	h := procRoot("testdata/host").host("testdata/host/os-release")
	if h.CPUModel != "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz" || h.LogicalCPUs != 2 {
		t.Errorf("CPU = %q x %d; want the fixture's Xeon x 2", h.CPUModel, h.LogicalCPUs)
	}
	if h.Kernel != "Linux 6.1.0-test" || h.Distro != "Test Linux 1" {
		t.Errorf("kernel %q, distro %q; want the fixture's", h.Kernel, h.Distro)
	}
	h = procRoot("testdata/nonexistent").host("testdata/nonexistent")
	if h.CPUModel != "" || h.Kernel != "" || h.Distro != "" || h.LogicalCPUs != runtime.NumCPU() {
		t.Errorf("without /proc: %+v; want empty model, kernel and distro, NumCPU logical CPUs", h)
	}
}

func TestHostLive(t *testing.T) {
	h := Host()
	if h.OS != runtime.GOOS || h.Arch != runtime.GOARCH || h.GoVersion != runtime.Version() || h.GOMAXPROCS < 1 || h.UsableCPUs < 1 || h.LogicalCPUs < h.UsableCPUs {
		t.Errorf("Host() = %+v; want this runtime's facts", h)
	}
	if h.Build.Version == "" {
		t.Error("Host().Build.Version is empty; want a version or devel")
	}
	if runtime.GOOS != "linux" {
		return
	}
	if h.CPUModel == "" || !strings.HasPrefix(h.Kernel, "Linux ") {
		t.Errorf("Host() on Linux: CPU model %q, kernel %q; want both read", h.CPUModel, h.Kernel)
	}
}

func TestHostDifferences(t *testing.T) {
	a := Host()
	if d := a.Differences(a); len(d) != 0 {
		t.Errorf("a.Differences(a) = %q; want none", d)
	}
	b := a
	b.CPUModel, b.LogicalCPUs, b.Build.Version = "Other CPU", a.LogicalCPUs+2, "devel abc"
	d := strings.Join(a.Differences(b), "; ")
	for _, want := range []string{"CPU model: ", "vs Other CPU", "logical CPUs: ", "lab version: "} {
		if !strings.Contains(d, want) {
			t.Errorf("Differences = %q; want it to contain %q", d, want)
		}
	}
	if strings.Contains(d, "kernel") {
		t.Errorf("Differences = %q names the kernel, which is the same", d)
	}
}
