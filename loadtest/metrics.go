package loadtest

import (
	"fmt"
	"strconv"
	"sync"
	"time"
)

// record is one finished request as a client saw it.
type record struct {
	label    int
	client   int
	kind     ErrorKind
	status   int
	intended time.Time // when the request was due (latency counts from here)
	sent     time.Time // when it was actually sent
	first    time.Time // first response byte (zero on failure before it)
	end      time.Time
	recv     int64
	sentN    int64
	connect  time.Duration
	timerLag time.Duration // lateness of the client's own wake-up
	measured bool
	late     bool // sent at once because it was already due
	reason   []byte
	err      error
}

// labelAcc accumulates the measured samples of one label.
type labelAcc struct {
	hist  *Histogram
	ok    int64
	recv  int64
	sent  int64
	errs  [numKinds]int64
	codes []codeCount      // by status code; a run sees few distinct ones
	texts map[string]int64 // failures by error text (see addErr)
}

// codeCount is how many responses had one status code (0: none).
type codeCount struct {
	code int
	n    int64
}

// addCode counts n responses with status code.
func (a *labelAcc) addCode(code int, n int64) {
	for i := range a.codes {
		if a.codes[i].code == code {
			a.codes[i].n += n
			return
		}
	}
	a.codes = append(a.codes, codeCount{code, n})
}

// tally returns a's figures as a Tally, sharing its histogram and error
// set.
func (a *labelAcc) tally() *Tally {
	t := &Tally{hist: a.hist, ok: a.ok, errs: errorKinds(a.errs), codes: map[string]int64{}, errSet: a.texts, recv: a.recv, snt: a.sent}
	for _, c := range a.codes {
		t.codes[strconv.Itoa(c.code)] += c.n
	}
	return t
}

// errText is the text of a failed request's error, as the error set
// counts it.
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
	hist *Histogram // with one label; nil with several
	ok   int64
	errs int64
	recv int64
	// kinds counts errs by kind, for the live dashboard's errors chart.
	kinds [numKinds]int64
	// labels splits the second by label when there is more than one.
	labels []secLabel
}

// secLabel is one label's share of a second.
type secLabel struct {
	hist *Histogram
	ok   int64
	errs int64
}

// lagAcc accumulates schedule lag (actual send − intended send).
type lagAcc struct {
	max      time.Duration
	timerMax time.Duration
	timer    *Histogram
	late     int64 // requests that were already due when the client got to them
}

// shard is one lock's worth of accumulators; clients are spread over the
// shards so that recording rarely contends.
type shard struct {
	mu     sync.Mutex
	labels []labelAcc
	sec    secAcc
	lag    lagAcc
	// tl is the current 100 ms interval of a Timeline (nil when off).
	tl     *Histogram
	tlOK   int64
	tlErrs int64
	_      [64]byte // keep shards' locks on separate cache lines
}

// recorder collects samples from all clients.
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
		if nlabels > 1 {
			sh.sec.labels = make([]secLabel, nlabels)
			for j := range sh.sec.labels {
				sh.sec.labels[j].hist = NewHistogram()
			}
		} else {
			sh.sec.hist = NewHistogram()
		}
		sh.lag.timer = NewHistogram()
	}
	return r
}

// record adds one sample to the shard of its client.
func (r *recorder) record(s *record) {
	sh := &r.shards[s.client%len(r.shards)]
	lat := s.end.Sub(s.intended)
	lag := s.sent.Sub(s.intended)
	var text string
	if s.measured && s.kind != KindOK {
		text = errText(s) // formatted outside the lock
	}
	sh.mu.Lock()
	if sh.tl != nil {
		if s.kind == KindOK {
			sh.tlOK++
			sh.tl.Record(lat)
		} else {
			sh.tlErrs++
		}
	}
	if s.kind == KindOK {
		sh.sec.ok++
	} else {
		sh.sec.errs++
		sh.sec.kinds[s.kind]++
	}
	if sh.sec.labels == nil {
		if s.kind == KindOK {
			sh.sec.hist.Record(lat)
		}
	} else {
		// With several labels the second's histogram is the merge of
		// theirs (takeSecond): each latency is recorded once.
		sl := &sh.sec.labels[s.label]
		if s.kind == KindOK {
			sl.ok++
			sl.hist.Record(lat)
		} else {
			sl.errs++
		}
	}
	sh.sec.recv += s.recv
	if s.measured {
		la := &sh.labels[s.label]
		if s.kind == KindOK {
			la.ok++
			la.hist.Record(lat)
		} else {
			la.errs[s.kind]++
			if la.texts == nil {
				la.texts = map[string]int64{}
			}
			addErr(la.texts, text, 1)
		}
		la.addCode(s.status, 1)
		la.recv += s.recv
		la.sent += s.sentN
		if lag > sh.lag.max {
			sh.lag.max = lag
		}
		if s.late {
			sh.lag.late++
		}
		if s.timerLag > sh.lag.timerMax {
			sh.lag.timerMax = s.timerLag
		}
		sh.lag.timer.Record(s.timerLag)
	}
	sh.mu.Unlock()
}

// takeSecond moves the current-second accumulators of all shards into
// into (and, with several labels, into labels, one entry per label; the
// errors by kind into kinds) and resets them.
func (r *recorder) takeSecond(into *Histogram, labels []secLabel, kinds *[numKinds]int64) (ok, errs, recv int64) {
	into.Reset()
	for j := range labels {
		labels[j].hist.Reset()
		labels[j].ok, labels[j].errs = 0, 0
	}
	for i := range r.shards {
		sh := &r.shards[i]
		sh.mu.Lock()
		if sh.sec.labels == nil {
			into.Merge(sh.sec.hist)
			sh.sec.hist.Reset()
		}
		ok += sh.sec.ok
		errs += sh.sec.errs
		recv += sh.sec.recv
		for k, n := range sh.sec.kinds {
			kinds[k] += n
		}
		for j := range sh.sec.labels {
			b := &sh.sec.labels[j]
			into.Merge(b.hist)
			if j < len(labels) {
				labels[j].hist.Merge(b.hist)
				labels[j].ok += b.ok
				labels[j].errs += b.errs
			}
			b.hist.Reset()
			b.ok, b.errs = 0, 0
		}
		sh.sec = secAcc{hist: sh.sec.hist, labels: sh.sec.labels}
		sh.mu.Unlock()
	}
	return ok, errs, recv
}

// enableTimeline makes every shard keep a Timeline interval; call it
// before the first sample.
func (r *recorder) enableTimeline() {
	for i := range r.shards {
		r.shards[i].tl = NewHistogram()
	}
}

// takeInterval moves the shards' Timeline intervals into into and resets
// them.
func (r *recorder) takeInterval(into *Histogram) (ok, errs int64) {
	into.Reset()
	for i := range r.shards {
		sh := &r.shards[i]
		sh.mu.Lock()
		into.Merge(sh.tl)
		sh.tl.Reset()
		ok += sh.tlOK
		errs += sh.tlErrs
		sh.tlOK, sh.tlErrs = 0, 0
		sh.mu.Unlock()
	}
	return ok, errs
}

// labelTotals merges the shards' accumulators of every label.
func (r *recorder) labelTotals(nlabels int) []*Tally {
	out := make([]*Tally, nlabels)
	for j := range out {
		out[j] = NewTally()
	}
	for i := range r.shards {
		sh := &r.shards[i]
		sh.mu.Lock()
		for j := range sh.labels {
			out[j].add(sh.labels[j].tally())
		}
		sh.mu.Unlock()
	}
	return out
}

// lagTotals merges the shards' lag accumulators.
func (r *recorder) lagTotals() lagAcc {
	out := lagAcc{timer: NewHistogram()}
	for i := range r.shards {
		sh := &r.shards[i]
		sh.mu.Lock()
		out.timer.Merge(sh.lag.timer)
		out.late += sh.lag.late
		out.max = max(out.max, sh.lag.max)
		out.timerMax = max(out.timerMax, sh.lag.timerMax)
		sh.mu.Unlock()
	}
	return out
}
