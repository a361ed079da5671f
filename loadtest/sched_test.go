package loadtest

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
)

func TestDueHeapOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h dueHeap
	var want []int64
	clients := map[*closedClient]int64{}
	for range 2000 {
		if len(h) > 0 && rng.IntN(3) == 0 {
			c := h.pop()
			if clients[c] != want[0] {
				t.Fatalf("popped %d, want the smallest %d", clients[c], want[0])
			}
			want = want[1:]
			continue
		}
		at := rng.Int64N(1000) - 100
		c := &closedClient{}
		clients[c] = at
		h.push(dueClient{at: at, c: c})
		want = append(want, at)
		slices.Sort(want)
	}
	for len(h) > 0 {
		if c := h.pop(); clients[c] != want[0] {
			t.Fatalf("popped %d, want %d", clients[c], want[0])
		}
		want = want[1:]
	}
}

// The scheduler wakes every client once, none before it is due, in due
// order on one goroutine's clock; close hands back the ones still waiting
// and refuses new ones.
func TestWakeSchedWakesWhenDue(t *testing.T) {
	for _, name := range []string{"default", "timer"} {
		t.Run(name, func(t *testing.T) {
			var a alarm = newTimerAlarm()
			if name == "default" {
				a = newAlarm()
			}
			var mu sync.Mutex
			woke := map[*closedClient]time.Time{}
			var wg sync.WaitGroup
			s := newWakeSched(a, 0, func(c *closedClient) {
				mu.Lock()
				woke[c] = time.Now()
				mu.Unlock()
				wg.Done()
			})
			start := time.Now()
			const n = 200
			for i := range n {
				c := &closedClient{next: start.Add(time.Duration(i%50) * time.Millisecond)}
				wg.Add(1)
				if !s.add(c) {
					t.Fatal("add refused before close")
				}
			}
			late := &closedClient{next: start.Add(time.Hour)}
			if !s.add(late) {
				t.Fatal("add refused before close")
			}
			wg.Wait()
			left := s.close()
			if len(left) != 1 || left[0] != late {
				t.Fatalf("close returned %d clients, want the one due in an hour", len(left))
			}
			if s.add(&closedClient{next: start}) {
				t.Fatal("add accepted after close")
			}
			if len(woke) != n {
				t.Fatalf("%d clients woke, want %d", len(woke), n)
			}
			for c, at := range woke {
				if at.Before(c.next) {
					t.Errorf("client due at +%v woke early at +%v", c.next.Sub(start), at.Sub(start))
				}
			}
		})
	}
}

// An alarm that fired before anyone waited still ends the next wait (the
// poller forgets such an edge), a fired alarm does not end a second wait,
// and close ends a wait.
func TestAlarmSetBeforeWait(t *testing.T) {
	for name, a := range map[string]alarm{"default": newAlarm(), "timer": newTimerAlarm()} {
		t.Run(name, func(t *testing.T) {
			a.set(-time.Millisecond)
			time.Sleep(10 * time.Millisecond) // let it expire unwatched
			done := make(chan bool)
			go func() { done <- a.wait() }()
			select {
			case ok := <-done:
				if !ok {
					t.Fatal("wait reported closed")
				}
			case <-time.After(5 * time.Second):
				t.Fatal("an alarm that fired before the wait was lost")
			}
			go func() { done <- a.wait() }()
			select {
			case <-done:
				t.Fatal("wait returned again without a new set")
			case <-time.After(50 * time.Millisecond):
			}
			a.close()
			if <-done {
				t.Fatal("wait after close reported a firing")
			}
		})
	}
}

// With a ramp-up the open model's expected arrivals follow rate·t²/(2·ramp)
// to the end of the ramp, then rate·t more.
func TestArrivalTime(t *testing.T) {
	const rate = 200.0
	ramp := time.Second
	for _, c := range []struct {
		u    float64
		want time.Duration
	}{
		{0, 0},
		{25, 500 * time.Millisecond}, // 200·0.5²/2 = 25
		{100, time.Second},           // the end of the ramp
		{300, 2 * time.Second},       // then 200/s
		{150, 1250 * time.Millisecond},
	} {
		if got := arrivalTime(c.u, rate, ramp); (got - c.want).Abs() > time.Microsecond {
			t.Errorf("arrivalTime(%v) = %v; want %v", c.u, got, c.want)
		}
	}
	if got := arrivalTime(300, rate, 0); (got - 1500*time.Millisecond).Abs() > time.Microsecond {
		t.Errorf("without ramp-up arrival 300 at 200/s came at %v; want 1.5s", got)
	}
}

// With slack, the alarm for the earliest client is put off by the slack so
// that the clients coming due meanwhile share its wake-up: the first client
// wakes no earlier than its due time plus the slack.
func TestWakeSchedSlackDefersFirstWake(t *testing.T) {
	const slack = 30 * time.Millisecond
	start := time.Now()
	woke := make(chan time.Duration, 3)
	s := newWakeSched(newAlarm(), slack, func(*closedClient) { woke <- time.Since(start) })
	defer s.close()
	for i := range 3 {
		c := &closedClient{next: start.Add(time.Duration(i) * 10 * time.Millisecond)}
		s.add(c)
	}
	for range 3 {
		if d := <-woke; d < slack {
			t.Errorf("a client woke at +%v; with %v of slack the first wake-up is at +%v or later", d, slack, slack)
		}
	}
}

// A run with timer slack says so in its summary, next to the latency it
// inflates, and records it in its settings.
func TestTimerSlackRecorded(t *testing.T) {
	srv, _ := delayServer(t, 0)
	res := mustRun(t, Settings{
		Requests: []Request{{URL: srv.URL}}, Clients: 2, Model: ModelRate,
		Think: 20 * time.Millisecond, TimerSlack: 2 * time.Millisecond, Duration: 300 * time.Millisecond,
	})
	if res.Settings.TimerSlack != 2*time.Millisecond {
		t.Errorf("settings record timer slack %v; want 2ms", res.Settings.TimerSlack)
	}
	if res.Total.Successes == 0 {
		t.Fatal("no successful requests")
	}
}
