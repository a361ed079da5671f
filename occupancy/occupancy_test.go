package occupancy

import (
	"sync"
	"testing"
	"time"
)

// TestBusyForKnownTime holds n entries in the state for a known time and
// reads n back as the mean over that time, while they are still in it and
// after they left.
func TestBusyForKnownTime(t *testing.T) {
	const n = 5
	const hold = 200 * time.Millisecond
	var g Gauge
	_, before := g.Read()
	t0 := time.Now()
	var wg sync.WaitGroup
	inside := make(chan struct{})
	release := make(chan struct{})
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := g.Enter()
			inside <- struct{}{}
			<-release
			g.Leave(s)
		}()
	}
	for range n {
		<-inside
	}
	time.Sleep(hold)
	got, mid := g.Read()
	span := time.Since(t0)
	if got != n {
		t.Errorf("entries now = %d; want %d", got, n)
	}
	// The entries entered just after t0, so the mean over [t0, now] is a
	// little below n; never above it.
	if mean := float64(mid-before) / float64(span); mean > n || mean < n*0.9 {
		t.Errorf("mean while held = %.3f over %v; want about %d", mean, span, n)
	}
	close(release)
	wg.Wait()
	got, after := g.Read()
	if got != 0 {
		t.Errorf("entries after leaving = %d; want 0", got)
	}
	if after < mid {
		t.Errorf("total went back from %v to %v", mid, after)
	}
	// Idle time adds nothing.
	time.Sleep(20 * time.Millisecond)
	if _, later := g.Read(); later != after {
		t.Errorf("total grew while empty: %v -> %v", after, later)
	}
}

func TestLeaveReturnsTimeInState(t *testing.T) {
	var g Gauge
	s := g.Enter()
	time.Sleep(10 * time.Millisecond)
	d := g.Leave(s)
	_, total := g.Read()
	if d < 10*time.Millisecond || d != total {
		t.Errorf("Leave = %v, total %v; want the same, at least 10ms", d, total)
	}
}

// TestHandOverAtOneStamp checks that an entry passed from one Gauge to
// another at one Now reading is in exactly one of them at every moment:
// the two totals add up to the time since it entered the first.
func TestHandOverAtOneStamp(t *testing.T) {
	var waiting, held Gauge
	in := waiting.Enter()
	time.Sleep(5 * time.Millisecond)
	at := Now()
	wait := waiting.LeaveAt(in, at)
	if got := held.EnterAt(at); got != at {
		t.Fatalf("EnterAt(%d) = %d; want it back", at, got)
	}
	time.Sleep(5 * time.Millisecond)
	d := held.Leave(at)
	_, w := waiting.Read()
	n, h := held.Read()
	if w != wait || h != d || n != 0 {
		t.Errorf("waiting total %v, held total %v with %d in it; want %v, %v, 0", w, h, n, wait, d)
	}
	if w+h != time.Duration(int64(at)-int64(in))+d || w < 5*time.Millisecond {
		t.Errorf("waiting %v + held %v; want the whole time from Enter to Leave, the wait at least 5ms", w, h)
	}
}
