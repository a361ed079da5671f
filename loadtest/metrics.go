package loadtest

import (
	"fmt"
	"strconv"
	"sync"
	"time"
)

// record is one finished request as a client saw it.
type record struct {
	outcome
	label    int
	client   int
	intended time.Time // latency counts from here
	sent     time.Time
	end      time.Time
	timerLag time.Duration // lateness of the client's own wake-up
	measured bool
	late     bool // already due when its client got to it
}

// labelAcc accumulates the measured samples of one label.
type labelAcc struct {
	hist  *Histogram
	ok    int64
	recv  int64
	sent  int64
	errs  [numKinds]int64
	codes []codeCount // a run sees few distinct status codes
	texts map[string]int64
}

type codeCount struct {
	code int
	n    int64
}

func (a *labelAcc) addCode(code int) {
	for i := range a.codes {
		if a.codes[i].code == code {
			a.codes[i].n++
			return
		}
	}
	a.codes = append(a.codes, codeCount{code, 1})
}

// tally returns a's figures as a Tally, sharing its histogram.
func (a *labelAcc) tally() *Tally {
	t := &Tally{hist: a.hist, ok: a.ok, errs: errorKinds(a.errs), codes: map[string]int64{}, errSet: a.texts, recv: a.recv, snt: a.sent}
	for _, c := range a.codes {
		t.codes[strconv.Itoa(c.code)] += c.n
	}
	return t
}

func errText(s *record) string {
	switch s.kind {
	case KindStatus:
		if len(s.reason) > 0 {
			return fmt.Sprintf("status %d %s", s.status, s.reason)
		}
		return fmt.Sprintf("status %d", s.status)
	case KindBody:
		return "body lacks the expected text"
	case KindCutoff:
		return "cut off: in flight when the run stopped waiting"
	}
	if s.err != nil {
		return s.err.Error()
	}
	return s.kind.String()
}

// secAcc accumulates the samples of the current second, warm-up included.
type secAcc struct {
	labels []secLabel
	recv   int64
	kinds  [numKinds]int64 // KindOK counts the successes
}

// secLabel counts one label's requests in a second or Timeline interval.
type secLabel struct {
	hist *Histogram
	ok   int64
	errs int64
}

func newSecLabels(n int) []secLabel {
	out := make([]secLabel, n)
	for j := range out {
		out[j].hist = NewHistogram()
	}
	return out
}

func (c *secLabel) add(ok bool, lat time.Duration) {
	if ok {
		c.ok++
		c.hist.Record(lat)
	} else {
		c.errs++
	}
}

func (c *secLabel) moveTo(into *secLabel) {
	into.hist.Merge(c.hist)
	into.ok += c.ok
	into.errs += c.errs
	c.hist.Reset()
	c.ok, c.errs = 0, 0
}

// lagAcc accumulates schedule lag (actual send − intended send).
type lagAcc struct {
	max      time.Duration
	timerMax time.Duration
	timer    *Histogram
	late     int64
}

// shard is one lock's accumulators; clients are spread over shards so recording rarely contends.
type shard struct {
	mu     sync.Mutex
	labels []labelAcc
	sec    secAcc
	lag    lagAcc
	tl     *secLabel // the current Timeline interval (nil when off)
	_      [64]byte  // keep shards' locks on separate cache lines
}

type recorder struct {
	shards []shard
}

func newRecorder(nshards, nlabels int) *recorder {
	r := &recorder{shards: make([]shard, nshards)}
	for i := range r.shards {
		sh := &r.shards[i]
		sh.labels = make([]labelAcc, nlabels)
		for j := range sh.labels {
			sh.labels[j].hist = NewHistogram()
		}
		sh.sec.labels = newSecLabels(nlabels)
		sh.lag.timer = NewHistogram()
	}
	return r
}

func (r *recorder) record(s *record) {
	sh := &r.shards[s.client%len(r.shards)]
	lat := s.end.Sub(s.intended)
	lag := s.sent.Sub(s.intended)
	var text string
	if s.measured && s.kind != KindOK {
		text = errText(s) // formatted outside the lock
	}
	ok := s.kind == KindOK
	sh.mu.Lock()
	if sh.tl != nil {
		sh.tl.add(ok, lat)
	}
	sh.sec.kinds[s.kind]++
	sh.sec.labels[s.label].add(ok, lat)
	sh.sec.recv += s.recv
	if s.measured {
		la := &sh.labels[s.label]
		if ok {
			la.ok++
			la.hist.Record(lat)
		} else {
			la.errs[s.kind]++
			if la.texts == nil {
				la.texts = map[string]int64{}
			}
			addErr(la.texts, text, 1)
		}
		la.addCode(s.status)
		la.recv += s.recv
		la.sent += s.sentN
		sh.lag.max = max(sh.lag.max, lag)
		sh.lag.timerMax = max(sh.lag.timerMax, s.timerLag)
		if s.late {
			sh.lag.late++
		}
		sh.lag.timer.Record(s.timerLag)
	}
	sh.mu.Unlock()
}

func (r *recorder) takeSecond(into *Histogram, labels []secLabel, kinds *[numKinds]int64) (recv int64) {
	for i := range r.shards {
		sh := &r.shards[i]
		sh.mu.Lock()
		recv += sh.sec.recv
		for k, n := range sh.sec.kinds {
			kinds[k] += n
		}
		for j := range sh.sec.labels {
			into.Merge(sh.sec.labels[j].hist)
			sh.sec.labels[j].moveTo(&labels[j])
		}
		sh.sec = secAcc{labels: sh.sec.labels}
		sh.mu.Unlock()
	}
	return recv
}

func (r *recorder) enableTimeline() {
	for i := range r.shards {
		r.shards[i].tl = &secLabel{hist: NewHistogram()}
	}
}

func (r *recorder) takeInterval(into *Histogram) (ok, errs int64) {
	into.Reset()
	acc := secLabel{hist: into}
	for i := range r.shards {
		sh := &r.shards[i]
		sh.mu.Lock()
		sh.tl.moveTo(&acc)
		sh.mu.Unlock()
	}
	return acc.ok, acc.errs
}

func (r *recorder) totals(nlabels int) ([]*Tally, lagAcc) {
	labels := make([]*Tally, nlabels)
	for j := range labels {
		labels[j] = NewTally()
	}
	lag := lagAcc{timer: NewHistogram()}
	for i := range r.shards {
		sh := &r.shards[i]
		sh.mu.Lock()
		for j := range sh.labels {
			labels[j].add(sh.labels[j].tally())
		}
		lag.timer.Merge(sh.lag.timer)
		lag.late += sh.lag.late
		lag.max = max(lag.max, sh.lag.max)
		lag.timerMax = max(lag.timerMax, sh.lag.timerMax)
		sh.mu.Unlock()
	}
	return labels, lag
}
