package machine

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// copyProc copies testdata/proc into a temp dir the test may change.
func copyProc(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	for _, name := range []string{"stat", "vmstat", "loadavg", "meminfo", "net/tcp", "net/tcp6", "sys/net/core/somaxconn"} {
		b, err := os.ReadFile(filepath.Join("testdata/proc", name))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(filepath.Join(dst, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dst, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func TestReadingFromDeltas(t *testing.T) {
	root := copyProc(t)
	s := newSampler(procRoot(root))
	// One window later: 1,000 more ticks, of which user 100, system 50,
	// iowait 150, idle 700; 500 pages read in.
	// cpu0 (from 50 0 25 400 25): +90 user, +10 system, +400 idle, nothing
	// else; cpu1 (50 0 25 400 25): +10 user, +40 system, +300 idle, +150
	// iowait.
	os.WriteFile(filepath.Join(root, "stat"), []byte("cpu  200 0 100 1500 200 0 0 0 0 0\ncpu0 140 0 35 800 25 0 0 0 0 0\ncpu1 60 0 65 700 175 0 0 0 0 0\n"), 0o644)
	os.WriteFile(filepath.Join(root, "vmstat"), []byte("pgpgin 1500\npgpgout 2000\npswpin 0\npswpout 0\n"), 0o644)
	s.Sample()
	r := s.Read()
	if !r.Available || r.CPUs != 2 || r.CPU == nil || len(r.Absent) != 0 || r.Error != "" {
		t.Fatalf("Read() = %+v; want available with 2 CPUs, nothing absent", r)
	}
	if got, want := cpuText(*r.CPU), "user 10 system 5 iowait 15 steal 0 idle 70"; got != want {
		t.Errorf("CPU = %s; want %s", got, want)
	}
	want := []string{"user 18 system 2 iowait 0 steal 0 idle 80", "user 2 system 8 iowait 30 steal 0 idle 60"}
	if len(r.PerCPU) != 2 || cpuText(r.PerCPU[0]) != want[0] || cpuText(r.PerCPU[1]) != want[1] {
		t.Errorf("PerCPU = %+v; want %q", r.PerCPU, want)
	}
	// cpu0 alone: 100 of 500 ticks busy; both: 150 of 1,000 (idle and
	// iowait are not busy).
	for _, tc := range []struct {
		cpus []int
		busy string
	}{{[]int{0}, "20"}, {[]int{0, 1}, "15"}, {[]int{2}, "absent"}} {
		o := &OwnCPUs{CPUs: tc.cpus}
		ownOver(o, s.prev, s.last, clockTick, true)
		if got := optText(o.Busy); got != tc.busy {
			t.Errorf("ownOver(cpus %v).Busy = %s; want %s", tc.cpus, got, tc.busy)
		}
	}
	if r.Paging == nil || r.Paging.PageInsPerSecond <= 0 || r.Paging.PageOutsPerSecond != 0 {
		t.Errorf("Paging = %+v; want page-ins above 0 and no page-outs", r.Paging)
	}
	if l := r.Load; l == nil || l.One != 0.5 || l.Five != 0.4 || l.Fifteen != 0.3 || l.Runnable == nil || *l.Runnable != 3 || l.Threads == nil || *l.Threads != 146 {
		t.Errorf("Load = %+v; want 0.5 0.4 0.3, 3 runnable of 146 threads", r.Load)
	}
	if m := r.Memory; m == nil || m.TotalBytes != 1000*1024 || m.AvailableBytes != 600*1024 || m.CachedBytes == nil || m.SwapTotalBytes == nil {
		t.Errorf("Memory = %+v; want total 1000 kB, available 600 kB, cached and swap", r.Memory)
	}
}

// cpuText writes a CPU reading with its absent parts named.
func cpuText(c CPU) string {
	return fmt.Sprintf("user %v system %v iowait %s steal %s idle %v", c.User, c.System, optText(c.IOWait), optText(c.Steal), c.Idle)
}

// optText writes a figure that may be absent.
func optText(p *float64) string {
	if p == nil {
		return "absent"
	}
	return fmt.Sprint(*p)
}

// TestReadingBeforeTheSecondSample: with one sample there is no window,
// so nothing is read over one; memory and load are read now.
func TestReadingBeforeTheSecondSample(t *testing.T) {
	r := newSampler(procRoot(copyProc(t))).Read()
	if r.CPU != nil || r.PerCPU != nil || r.Process != nil || r.Paging != nil {
		t.Errorf("Read() after one sample: cpu %+v, process %+v, paging %+v; want them absent", r.CPU, r.Process, r.Paging)
	}
	// The own CPUs' counters are read now; their figures over a window
	// are absent.
	if o := r.OwnCPUs; o == nil || o.Busy != nil || o.Interference != nil || o.Steal != nil || o.InterferenceSecondsTotal == nil || o.StealSecondsTotal == nil {
		t.Errorf("Read() after one sample: own CPUs %+v; want the counters alone", o)
	}
	if !r.Available || r.Memory == nil || r.Load == nil {
		t.Errorf("Read() after one sample = %+v; want memory and load", r)
	}
}

func TestReadingWithoutProc(t *testing.T) {
	r := newSampler(procRoot(filepath.Join(t.TempDir(), "none"))).Read()
	if r.Available || r.Error == "" || r.CPU != nil || r.Process != nil || r.Memory != nil {
		t.Errorf("Read() without /proc = %+v; want not available with a reason", r)
	}
}

// TestReadingAbsentOffLinux reads a platform that gives what gopsutil
// gives on Windows: CPU times without I/O wait and steal, memory without
// the page cache, process times; no paging, load average or affinity.
// Each missing part is absent from the Reading and its JSON, not 0.
func TestReadingAbsentOffLinux(t *testing.T) {
	p := &FakePlatform{}
	s := newSampler(p)
	p.Advance(CPUTicks{User: 30, System: 10, Idle: 60}, 250*time.Millisecond)
	s.Sample()
	r := s.Read()
	if !r.Available || r.CPU == nil || r.Process == nil || r.Memory == nil || r.Error != "" {
		t.Fatalf("Read() = %+v; want CPU, process and memory", r)
	}
	if got, want := cpuText(*r.CPU), "user 30 system 10 iowait absent steal absent idle 60"; got != want {
		t.Errorf("CPU = %s; want %s", got, want)
	}
	if r.Process.Total <= 0 {
		t.Errorf("process CPU = %+v; want the 250 ms the platform counted", r.Process)
	}
	if r.Load != nil || r.Paging != nil || r.Memory.CachedBytes != nil {
		t.Errorf("load %+v, paging %+v, cached %v; want all absent", r.Load, r.Paging, r.Memory.CachedBytes)
	}
	// No affinity: the own CPUs are all the machine's, busy 40 % of their
	// time; of the 0.4 s busy over a window of 0.5 s per CPU, the process
	// used 0.25 s: 0.15 s others, 30 % of one CPU. No steal.
	if o := r.OwnCPUs; o == nil || !o.AffinityUnknown || len(o.CPUs) != 2 || optText(o.Busy) != "40" ||
		o.Interference == nil || *o.Interference != 30 || o.Steal != nil || o.InterferenceSecondsTotal == nil || o.StealSecondsTotal != nil {
		t.Errorf("own CPUs %+v; want both CPUs (affinity unknown), busy 40, interference 30 and its total, no steal", o)
	}
	if want := "cpu.iowait cpu.steal own_cpus.steal own_cpus.steal_seconds_total paging load memory.cached_bytes memory.swap_total_bytes memory.swap_free_bytes"; strings.Join(sortedCopy(r.Absent), " ") != strings.Join(sortedCopy(strings.Fields(want)), " ") {
		t.Errorf("Absent = %v; want %s", r.Absent, want)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"iowait":`, `"steal":`, `"load":`, `"paging":`, `"steal_seconds_total":`, `"cached_bytes":`} {
		if strings.Contains(string(b), key) {
			t.Errorf("JSON has %s; want it left out:\n%s", key, b)
		}
	}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func TestSockets(t *testing.T) {
	root := procRoot(copyProc(t))
	s, err := root.sockets(8080, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.States["LISTEN"] != 1 || s.States["ESTABLISHED"] != 2 || s.States["TIME_WAIT"] != 2 || len(s.States) != 3 {
		t.Errorf("local 8080 states = %v; want LISTEN 1, ESTABLISHED 2, TIME_WAIT 2 (one IPv6)", s.States)
	}
	if s.Listen == nil || *s.Listen != (ListenQueue{AcceptQueue: 3, Backlog: 4096}) {
		t.Errorf("local 8080 listen = %+v; want accept queue 3 of 4096", s.Listen)
	}
	d, err := root.sockets(5432, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.States["ESTABLISHED"] != 1 || d.States["CLOSE_WAIT"] != 1 || d.States["TIME_WAIT"] != 1 || len(d.States) != 3 || d.Listen != nil {
		t.Errorf("remote 5432 = %+v; want ESTABLISHED 1, CLOSE_WAIT 1, TIME_WAIT 1 and no listen queue", d)
	}

	// A process that holds the CLOSE_WAIT socket (inode 7552) and a file.
	fd := filepath.Join(string(root), "123", "fd")
	os.MkdirAll(fd, 0o755)
	os.Symlink("socket:[7552]", filepath.Join(fd, "3"))
	os.Symlink("/dev/null", filepath.Join(fd, "4"))
	own, err := root.socketInodes("123")
	if err != nil || len(own) != 1 || !own["7552"] {
		t.Fatalf("socketInodes = %v, %v; want just 7552", own, err)
	}
	d, err = root.sockets(5432, false, byInode(own))
	if err != nil || d.States["CLOSE_WAIT"] != 1 || len(d.States) != 1 {
		t.Errorf("remote 5432 of process 123 = %+v, %v; want only its CLOSE_WAIT socket", d, err)
	}
	// The process also closed a connection from local port 0xC102, now in
	// TIME_WAIT with inode 0: only its local port says whose it was.
	d, err = root.sockets(5432, false, byLocalPort(map[int]bool{0xC101: true, 0xC102: true}))
	if err != nil || d.States["CLOSE_WAIT"] != 1 || d.States["TIME_WAIT"] != 1 || len(d.States) != 2 {
		t.Errorf("remote 5432 from local ports C101, C102 = %+v, %v; want its CLOSE_WAIT and TIME_WAIT sockets, not C100's", d, err)
	}
	if _, err := root.socketInodes("124"); err == nil {
		t.Error("socketInodes of a process that does not exist: no error")
	}
}

// TestOwnRemotePort checks on this machine that OwnRemotePort counts this
// process's connection to a port and not another process's.
func TestOwnRemotePort(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd: not Linux")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if sh, err := exec.LookPath("bash"); err == nil {
		// bash holds a second connection to the port until killed.
		child := exec.Command(sh, "-c", fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo up && exec sleep 30", port))
		out, _ := child.StdoutPipe()
		if err := child.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { child.Process.Kill(); child.Wait() }()
		if line, _ := bufio.NewReader(out).ReadString('\n'); line != "up\n" {
			t.Fatalf("bash did not connect: %q", line)
		}
		if all, err := RemotePort(port); err != nil || all.States["ESTABLISHED"] != 2 {
			t.Errorf("RemotePort(%d) = %+v, %v; want both processes' connections, 2 ESTABLISHED", port, all, err)
		}
	}
	got, err := OwnRemotePort(port)
	if err != nil || got.States["ESTABLISHED"] != 1 || len(got.States) != 1 {
		t.Errorf("OwnRemotePort(%d) = %+v, %v; want this process's one ESTABLISHED connection", port, got, err)
	}
}

// TestLive reads this machine's /proc.
func TestLive(t *testing.T) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skip("no /proc/stat: not Linux")
	}
	s := NewSampler()
	s.Sample()
	r := s.Read()
	if !r.Available || r.CPUs < 1 || r.Memory == nil || r.Memory.TotalBytes == 0 || r.Process == nil || r.Process.Total < 0 || r.Error != "" || len(r.Absent) != 0 {
		t.Errorf("live Read() = %+v; want available, CPUs and memory", r)
	}
	time.Sleep(100 * time.Millisecond) // some clock ticks (10 ms each)
	s.Sample()
	r = s.Read()
	if len(r.PerCPU) != r.CPUs {
		t.Errorf("live Read: %d per-CPU readings for %d CPUs", len(r.PerCPU), r.CPUs)
	}
	if o := r.OwnCPUs; o == nil || len(o.CPUs) < 1 || o.Busy == nil || *o.Busy < 0 || *o.Busy > 100 || o.AffinityUnknown {
		t.Errorf("live Read: own CPUs %+v; want this process's affinity and a busy share 0..100", o)
	} else if o.Interference == nil || *o.Interference < 0 || *o.Interference > 100*float64(len(o.CPUs)) ||
		o.Steal == nil || o.InterferenceSecondsTotal == nil || o.StealSecondsTotal == nil {
		t.Errorf("live Read: own CPUs %+v; want interference 0..%d %% of a core, steal and both totals", o, 100*len(o.CPUs))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got, err := LocalPort(port)
	if err != nil {
		t.Fatal(err)
	}
	// The dialled connection waits in the accept queue: nobody accepts it.
	if got.States["LISTEN"] != 1 || got.Listen == nil || got.Listen.AcceptQueue != 1 || got.States["ESTABLISHED"] != 1 {
		t.Errorf("LocalPort(%d) = %+v (listen %+v); want LISTEN 1, one ESTABLISHED waiting in the accept queue", port, got, got.Listen)
	}
}
