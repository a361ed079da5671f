package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"bbslab/machine"
)

// TestCoresUseArithmetic turns two reads of a process's CPUs' counters
// into percentages of one core over the wall time between them: a dip of
// the interference below the earlier read is 0, and reads of different
// CPUs make no span.
func TestCoresUseArithmetic(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	prev := machine.OwnCounters{CPUs: []int{1}, BusySeconds: 10, InterferenceSeconds: f(4), StealSeconds: f(1)}
	last := machine.OwnCounters{CPUs: []int{1}, BusySeconds: 11.5, InterferenceSeconds: f(4.5), StealSeconds: f(1.2)}
	u := coresUse(prev, last, 2*time.Second)
	if u == nil || u.Busy != 75 || u.Interference != 25 || u.Steal == nil || *u.Steal != 10 || len(u.CPUs) != 1 {
		t.Errorf("coresUse(1.5 s busy, 0.5 s others, 0.2 s steal over 2 s) = %+v; want busy 75, interference 25, steal 10", u)
	}
	if got, want := u.Text(), "its CPUs [1] over the measured span: busy 75.0%, others 25.0% (steal 10.0%) of a core"; got != want {
		t.Errorf("Text() = %q; want %q", got, want)
	}
	dip := last
	dip.InterferenceSeconds, dip.StealSeconds = f(3.99), nil
	if u := coresUse(prev, dip, 2*time.Second); u == nil || u.Interference != 0 || u.Steal != nil {
		t.Errorf("coresUse over a dip of 10 ms, no steal = %+v; want interference 0, steal absent", u)
	}
	other := last
	other.CPUs = []int{0}
	if u := coresUse(prev, other, 2*time.Second); u != nil {
		t.Errorf("coresUse across CPUs 1 and 0 = %+v; want nil", u)
	}
	// Pinned: fewer CPUs than the machine's, the affinity known. Go's
	// NumCPU under taskset counts only the affinity, so the machine's
	// count comes from the counters.
	for _, tt := range []struct {
		cpus    []int
		machine int
		unknown bool
		want    bool
	}{
		{[]int{1}, 2, false, true},
		{[]int{0, 1}, 2, false, false},
		{[]int{0, 1}, 2, true, false},
		{[]int{1}, 0, false, false}, // the machine's count unread
	} {
		p, l := prev, last
		p.CPUs, l.CPUs = tt.cpus, tt.cpus
		l.MachineCPUs, l.AffinityUnknown = tt.machine, tt.unknown
		if u := coresUse(p, l, 2*time.Second); u == nil || u.Pinned != tt.want {
			t.Errorf("coresUse of CPUs %v of a %d-CPU machine (affinity unknown %v): %+v; want pinned %v", tt.cpus, tt.machine, tt.unknown, u, tt.want)
		}
	}
}

// TestRunFillsCores runs the engine for a short measured span and checks
// that the cost says how the generator's CPUs were used over it, on
// Linux with steal: the interference within [0, 100 x CPUs] % of a core
// and no more than their busy time; in the JSON and the text report.
func TestRunFillsCores(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the generator's CPUs with steal are read on Linux")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	res, err := Run(context.Background(), Settings{Requests: []Request{{URL: srv.URL}}, Clients: 2, Think: 5 * time.Millisecond,
		Warmup: 300 * time.Millisecond, Duration: time.Second, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Cost.Cores
	if c == nil {
		t.Fatalf("Cost.Cores = nil (warnings %q); want the generator's CPUs", res.Warnings)
	}
	limit := 100 * float64(len(c.CPUs))
	if len(c.CPUs) == 0 || c.Interference < 0 || c.Interference > limit || c.Busy < 0 || c.Busy > limit+5 || c.Interference > c.Busy || c.Steal == nil || *c.Steal < 0 {
		t.Errorf("Cost.Cores = %+v; want CPUs, interference 0..%v and at most busy, steal", c, limit)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"cores":{"cpus":`)) || !bytes.Contains(b, []byte(`"interference_percent":`)) {
		t.Errorf("result JSON lacks cost.cores: %.300s", b)
	}
}
