package loadtest

import (
	"sync"
	"sync/atomic"
	"time"
)

// wakeSched wakes thinking clients when due on one high-resolution alarm, not a runtime
// timer per client, which fires up to 1 ms late: the lateness would count in the rate
// model's latency. Due clients go to a pool of parked goroutines.
type wakeSched struct {
	mu     sync.Mutex
	base   time.Time // due times are nanoseconds since base
	due    dueHeap
	alarm  alarm
	armed  int64 // expiry the alarm is set to; zero when disarmed
	closed bool

	slack int64 // nanoseconds a wake-up may come after the earliest due client
	wake  func(*closedClient)

	work    chan *closedClient // idle pool goroutines receive here
	done    chan struct{}
	idle    atomic.Int32 // pool goroutines parked on work
	loopEnd chan struct{}
}

const maxIdleWorkers = 256

func newWakeSched(a alarm, slack time.Duration, wake func(*closedClient)) *wakeSched {
	s := &wakeSched{alarm: a, base: time.Now(), slack: int64(slack), wake: wake,
		work: make(chan *closedClient), done: make(chan struct{}), loopEnd: make(chan struct{})}
	go s.loop()
	return s
}

// add schedules c to wake at c.next; false: closed, and the caller still owns c.
func (s *wakeSched) add(c *closedClient) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	at := int64(c.next.Sub(s.base))
	s.due.push(dueClient{at: at, c: c})
	if s.armed == 0 || at+s.slack < s.armed {
		s.arm(at)
	}
	return true
}

// arm sets the alarm for at plus the slack. Called with s.mu held.
func (s *wakeSched) arm(at int64) {
	at += s.slack
	s.armed = max(at, 1)
	s.alarm.set(time.Duration(at) - time.Since(s.base))
}

func (s *wakeSched) loop() {
	defer close(s.loopEnd)
	var ready []*closedClient
	for s.alarm.wait() {
		ready = s.take(ready[:0])
		for i, c := range ready {
			s.run(c)
			ready[i] = nil
		}
	}
}

// take pops the clients that are due and re-arms the alarm for the next.
func (s *wakeSched) take(ready []*closedClient) []*closedClient {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ready
	}
	now := int64(time.Since(s.base))
	for len(s.due) > 0 && s.due[0].at <= now {
		ready = append(ready, s.due.pop())
	}
	s.armed = 0
	if len(s.due) > 0 {
		s.arm(s.due[0].at)
	}
	return ready
}

func (s *wakeSched) run(c *closedClient) {
	select {
	case s.work <- c:
	default:
		go s.worker(c)
	}
}

func (s *wakeSched) worker(c *closedClient) {
	for {
		s.wake(c)
		if s.idle.Add(1) > maxIdleWorkers {
			s.idle.Add(-1)
			return
		}
		select {
		case c = <-s.work:
			s.idle.Add(-1)
		case <-s.done:
			s.idle.Add(-1)
			return
		}
	}
}

// close stops the scheduler and returns the clients still waiting.
func (s *wakeSched) close() []*closedClient {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	left := make([]*closedClient, len(s.due))
	for i, d := range s.due {
		left[i] = d.c
	}
	s.due = nil
	s.mu.Unlock()
	s.alarm.close()
	<-s.loopEnd
	close(s.done)
	return left
}

// dueHeap is a binary min-heap of clients by due time.
type dueHeap []dueClient

type dueClient struct {
	at int64
	c  *closedClient
}

func (h *dueHeap) push(d dueClient) {
	*h = append(*h, d)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if a[p].at <= d.at {
			break
		}
		a[i] = a[p]
		i = p
	}
	a[i] = d
}

func (h *dueHeap) pop() *closedClient {
	a := *h
	top := a[0].c
	n := len(a) - 1
	last := a[n]
	a[n] = dueClient{}
	a = a[:n]
	*h = a
	if n == 0 {
		return top
	}
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		if r := l + 1; r < n && a[r].at < a[l].at {
			l = r
		}
		if last.at <= a[l].at {
			break
		}
		a[i] = a[l]
		i = l
	}
	a[i] = last
	return top
}
