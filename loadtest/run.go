package loadtest

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

type runner struct {
	s       Settings
	reqs    []*compiled
	cum     []int // cumulative weights
	rec     *recorder
	jtl     *jtlSink
	start   time.Time
	warmEnd time.Time
	stopNs  atomic.Int64 // the stop time since start; moved earlier by stop
	// ctx ends with the measured window; cutCtx with the drain (failures then KindCutoff).
	ctx       context.Context
	cancel    context.CancelFunc
	cutCtx    context.Context
	cutCancel context.CancelFunc
	seq       atomic.Int64
	issued    atomic.Int64
	finished  atomic.Int64
	arrivals  atomic.Int64
	dropped   atomic.Int64
	conns     *connRegistry
	sched     *wakeSched   // wakes thinking clients (delay and rate models)
	busy      atomic.Int64 // open model: arrivals handed out and not yet done
	tl        *timelineRec // nil unless Settings.TimelineRequests
}

// Run performs one load run; cancelling ctx stops it early, marked Interrupted.
// It fails on invalid settings or an https:// certificate that fails verification.
func Run(ctx context.Context, s Settings) (*Result, error) {
	reqs, err := s.validate()
	if err != nil {
		return nil, err
	}
	s.Seed = cmp.Or(s.Seed, uint64(time.Now().UnixNano()))
	r, err := newRunner(ctx, s, reqs)
	if err != nil {
		return nil, err
	}
	cost := startCost()
	r.setStart()
	r.ctx, r.cancel = context.WithCancel(context.Background())
	defer r.cancel()
	r.cutCtx, r.cutCancel = context.WithCancel(context.Background())
	defer r.cutCancel()

	var watch Watch
	if s.Watcher != nil {
		watch = s.Watcher.Start(ctx, s, r.warmEnd)
	}
	var wg sync.WaitGroup
	r.startClients(&wg)
	series, interrupted := r.clock(ctx, cost)
	if watch != nil {
		watch.EndWindow()
	}
	if r.halt(ctx, interrupted, &wg) {
		interrupted = true // the interrupt came during the drain
	}
	return r.finish(cost, series, interrupted, watch)
}

func newRunner(ctx context.Context, s Settings, reqs []*compiled) (*runner, error) {
	r := &runner{s: s, reqs: reqs, conns: newConnRegistry()}
	total := 0
	for _, c := range reqs {
		total += c.weight
		r.cum = append(r.cum, total)
	}
	if err := setTLS(ctx, r.reqs, s.Insecure, s.Timeout); err != nil {
		return nil, err
	}
	nshards := min(s.Clients, 4*runtime.GOMAXPROCS(0))
	r.rec = newRecorder(nshards, len(r.reqs))
	if s.TimelineRequests > 0 {
		r.tl = newTimelineRec(s.TimelineRequests)
		r.rec.enableTimeline()
	}
	if s.JTL != nil {
		r.jtl = newJTLSink(s.JTL, s.Clients, s.Name)
	}
	return r, nil
}

func (r *runner) setStart() {
	s := r.s
	r.start = time.Now()
	r.warmEnd = r.start.Add(s.Warmup)
	planned := s.MaxDuration
	if s.Duration > 0 && s.Warmup+s.Duration < planned {
		planned = s.Warmup + s.Duration
	}
	r.stopNs.Store(int64(planned))
}

func (r *runner) startClients(wg *sync.WaitGroup) {
	s := r.s
	if s.Model == ModelOpen {
		// Buffered to the cap: an arrival is dropped only when every connection is busy.
		arrive := make(chan time.Time, s.Clients)
		for i := 0; i < s.Clients; i++ {
			wg.Go(func() { r.openWorker(i, arrive) })
		}
		wg.Go(func() { r.dispatch(arrive) })
		return
	}
	r.sched = newWakeSched(newAlarm(), s.TimerSlack, (*closedClient).wake)
	for i := 0; i < s.Clients; i++ {
		r.startClient(i, wg)
	}
}

func (r *runner) finish(cost *costMeter, series []SecondRow, interrupted bool, watch Watch) (*Result, error) {
	end := time.Now()
	series = r.flushSecond(series, end) // the last, partial second and the drain
	for _, o := range r.s.Observers {
		o.End()
	}
	if r.tl != nil {
		r.tl.flush(r.rec, r.start, end)
	}
	if r.jtl != nil {
		if err := r.jtl.flush(); err != nil {
			if watch != nil {
				watch.Finish(0, 0) // end its goroutines
			}
			return nil, fmt.Errorf("jtl: %w", err)
		}
	}
	res := r.result(cost, series, interrupted, end)
	if watch != nil {
		w := watch.Finish(res.Total.Successes, res.MeasuredSeconds)
		res.Server, res.Profiles = w.Server, w.Profiles
		res.Warnings = append(res.Warnings, w.Warnings...)
		res.Environment.Server = w.Environment
	}
	return res, nil
}

// halt waits up to Settings.Drain for the requests in flight (slow ones are the
// likeliest there), then cuts the rest off as KindCutoff; cut: ctx ended the drain.
func (r *runner) halt(ctx context.Context, interrupted bool, wg *sync.WaitGroup) (cut bool) {
	if r.sched != nil {
		for _, c := range r.sched.close() { // no wake-up will run for these
			c.finish()
		}
	}
	if !interrupted {
		done := make(chan struct{})
		go func() {
			wg.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(r.s.Drain):
		case <-ctx.Done():
			cut = true
		}
	}
	r.cutCancel()
	r.conns.wakeAll()
	wg.Wait()
	return cut
}

func (r *runner) stopAt() time.Time { return r.start.Add(time.Duration(r.stopNs.Load())) }

// stop ends the run now (if it has not ended earlier).
func (r *runner) stop() {
	now := int64(time.Since(r.start))
	for {
		cur := r.stopNs.Load()
		if now >= cur || r.stopNs.CompareAndSwap(cur, now) {
			break
		}
	}
	r.cancel()
}

// clock keeps a series row per second; true means ctx interrupted the run.
func (r *runner) clock(ctx context.Context, cost *costMeter) (series []SecondRow, interrupted bool) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	deadline := time.NewTimer(time.Until(r.stopAt()))
	defer deadline.Stop()
	warm := time.NewTimer(time.Until(r.warmEnd))
	defer warm.Stop()
	defer cost.spanEnd()
	var tlTick <-chan time.Time
	if r.tl != nil {
		t := time.NewTicker(TimelineStep)
		defer t.Stop()
		tlTick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			r.stop()
			return series, true
		case <-r.ctx.Done():
			return series, false
		case <-deadline.C:
			r.stop()
			return series, false
		case <-warm.C:
			cost.spanStart()
		case now := <-tlTick:
			r.tl.flush(r.rec, r.start, now)
		case now := <-tick.C:
			series = r.flushSecond(series, now)
			cost.sample()
		}
	}
}

// flushSecond appends the row for the interval ending at now and tells the observers.
func (r *runner) flushSecond(series []SecondRow, now time.Time) []SecondRow {
	h := NewHistogram()
	labels := newSecLabels(len(r.reqs))
	var kinds [numKinds]int64
	recv := r.rec.takeSecond(h, labels, &kinds)
	ok, errs := kinds[KindOK], int64(0)
	for _, n := range kinds[KindOK+1:] {
		errs += n
	}
	t := now.Sub(r.start).Seconds()
	prev := 0.0
	if len(series) > 0 {
		prev = series[len(series)-1].T
	}
	dt := t - prev
	if dt <= 0.001 && ok+errs == 0 {
		return series
	}
	rate := func(n int64) float64 {
		if dt <= 0 {
			return 0
		}
		return math.Round(float64(n)/dt*10) / 10
	}
	row := SecondRow{
		T: Round3(t), Warmup: (prev+t)/2 < r.s.Warmup.Seconds(), // the interval is mostly warm-up
		Successes: ok, Errors: errs, Bytes: recv, Histogram: h, ErrorKinds: errorKinds(kinds),
		Throughput: rate(ok),
	}
	for j, l := range labels {
		if len(labels) > 1 {
			row.Labels = append(row.Labels, LabelSecond{Label: r.reqs[j].label, Successes: l.ok, Errors: l.errs,
				Histogram: l.hist, Throughput: rate(l.ok)})
		}
	}
	row.FillLatency()
	for _, o := range r.s.Observers {
		o.Second(row)
	}
	return append(series, row)
}

func (r *runner) pick(rng *rand.Rand) *compiled {
	if len(r.reqs) == 1 {
		return r.reqs[0]
	}
	i, _ := slices.BinarySearch(r.cum, rng.IntN(r.cum[len(r.cum)-1])+1)
	return r.reqs[i]
}

// worker is the per-connection state of one client.
type worker struct {
	r       *runner
	id      int
	conn    conn
	rng     *rand.Rand
	st      renderState
	buf     []byte
	scratch []byte
	out     outcome
	cur     record // the request in flight, reused for each
}

func (r *runner) newWorker(id int) *worker {
	w := &worker{r: r, id: id}
	w.rng = rand.New(rand.NewPCG(r.s.Seed, uint64(id)+1))
	w.st = renderState{seq: &r.seq, client: id + 1, rng: w.rng}
	w.conn = conn{timeout: r.s.Timeout, keepAlive: !r.s.DisableKeepAlive, stopCtx: r.cutCtx, reg: r.conns, wantFirst: r.jtl != nil}
	return w
}

// exchange sends one request due at intended and records it; false: the run is over.
func (w *worker) exchange(intended, sent time.Time, timerLag time.Duration, late bool) (time.Time, bool) {
	r := w.r
	if !sent.Before(r.warmEnd) && r.s.MaxRequests > 0 && r.issued.Add(1) > r.s.MaxRequests {
		return sent, false // the measured requests are all issued
	}
	req := r.pick(w.rng)
	ti := r.tl.next()
	if req.addr != w.conn.addr || req.tlsConf != w.conn.tlsConf {
		w.conn.close()
		w.conn.addr, w.conn.tlsConf = req.addr, req.tlsConf
	}
	wire := req.static
	if wire == nil {
		w.buf = req.render(w.buf[:0], &w.scratch, &w.st)
		wire = w.buf
	}
	o := &w.out
	w.conn.do(sent, wire, req.head, req.contains, o)
	end := time.Now()
	if o.kind != KindOK && r.cutCtx.Err() != nil {
		o.kind = KindCutoff
	}
	measured := !end.Before(r.warmEnd)
	if o.kind == KindOK {
		if req.expect != 0 && o.status != req.expect || req.expect == 0 && o.status >= 400 {
			o.kind = KindStatus
		} else if o.bodyFail {
			o.kind = KindBody
		}
	}
	s := &w.cur
	*s = record{outcome: *o, label: req.index, client: w.id, intended: intended, sent: sent, end: end,
		timerLag: timerLag, measured: measured, late: late}
	r.rec.record(s)
	if ti >= 0 {
		r.tl.slots[ti] = tlSlot{start: intended.Sub(r.start), lat: end.Sub(intended), kind: o.kind, done: true}
	}
	if measured && r.jtl != nil {
		r.jtl.write(s, req)
	}
	if measured && r.s.MaxRequests > 0 && r.finished.Add(1) >= r.s.MaxRequests {
		r.stop()
		return end, false
	}
	if o.kind == KindConnect && r.s.Think == 0 && r.s.Model != ModelOpen {
		// A refused connection returns at once; don't spin.
		end = end.Add(10 * time.Millisecond)
		return end, w.sleep(end)
	}
	return end, true
}

// sleep waits until t or the end of the run; false means the run is over.
func (w *worker) sleep(t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return w.r.ctx.Err() == nil
	}
	select {
	case <-time.After(d):
		return true
	case <-w.r.ctx.Done():
		return false
	}
}

// closedClient is one client of the delay or rate model. It owns no goroutine while it
// thinks (wakeSched hands it to a pool goroutine when due), so one process holds many.
type closedClient struct {
	r     *runner
	w     *worker
	timer *Timer
	next  time.Time // when the next request is due
	wg    *sync.WaitGroup
}

func (r *runner) startClient(id int, wg *sync.WaitGroup) {
	c := &closedClient{r: r, w: r.newWorker(id), wg: wg}
	c.timer = NewTimer(r.s.TimerKind, r.s.Think, r.s.ThinkDev, r.s.Seed^uint64(id+1)*0x2545f4914f6cdd1d)
	c.next = r.start
	if r.s.Rampup > 0 {
		c.next = c.next.Add(time.Duration(int64(r.s.Rampup) * int64(id) / int64(r.s.Clients)))
	}
	if r.s.Think > 0 {
		c.next = c.next.Add(time.Duration(c.w.rng.Int64N(int64(r.s.Think))))
	}
	wg.Add(1)
	if !r.sched.add(c) {
		c.finish()
	}
}

// finish ends the client; it runs exactly once.
func (c *closedClient) finish() {
	c.w.conn.close()
	c.wg.Done()
}

func (c *closedClient) wake() {
	r := c.r
	now := time.Now()
	timerLag := now.Sub(c.next)
	late := false
	for {
		if r.ctx.Err() != nil || now.After(r.stopAt()) {
			c.finish()
			return
		}
		intended := c.next
		if r.s.Model == ModelDelay {
			intended = now // closed model: latency from the actual send
		}
		end, ok := c.w.exchange(intended, now, timerLag, late && r.s.Model == ModelRate)
		if !ok {
			c.finish()
			return
		}
		think := c.timer.Next()
		if r.s.Model == ModelRate {
			c.next = c.next.Add(think)
		} else {
			c.next = end.Add(think)
		}
		now = end
		if c.next.After(now) {
			c.w.conn.idle()
			if !r.sched.add(c) { // the run has stopped
				c.finish()
			}
			return
		}
		timerLag, late = 0, true // already due: send at once
	}
}

// dispatch hands the open model's arrivals to idle connections, dropping those finding
// none. Arrival k comes when the expected count reaches u_k, u growing by 1 or Exp(1).
func (r *runner) dispatch(arrive chan<- time.Time) {
	rng := rand.New(rand.NewPCG(r.s.Seed, 0))
	a := newAlarm()
	defer a.close()
	stop := context.AfterFunc(r.ctx, a.close)
	defer stop()
	u := 0.0
	next := r.start
	for {
		if d := time.Until(next); d > 0 {
			a.set(d + r.s.TimerSlack)
			if !a.wait() {
				return
			}
			continue // the wait may end early: check the time again
		} else if r.ctx.Err() != nil {
			return
		}
		now := time.Now()
		if now.After(r.stopAt()) {
			return
		}
		for !next.After(now) {
			measured := !next.Before(r.warmEnd)
			if measured {
				r.arrivals.Add(1)
			}
			if r.busy.Load() < int64(r.s.Clients) {
				r.busy.Add(1) // only this goroutine adds: the buffer never fills
				arrive <- next
			} else if measured {
				r.dropped.Add(1)
			}
			if r.s.TimerKind == TimerPoisson {
				u += rng.ExpFloat64()
			} else {
				u++
			}
			next = r.start.Add(arrivalTime(u, r.s.Rate, r.s.Rampup))
		}
	}
}

// arrivalTime is when the expected arrivals reach u, the rate climbing linearly over rampup.
func arrivalTime(u, rate float64, rampup time.Duration) time.Duration {
	ramp := rampup.Seconds()
	inRamp := rate * ramp / 2
	if u < inRamp { // Λ(t) = rate·t²/(2·ramp)
		return time.Duration(math.Sqrt(2*ramp*u/rate) * float64(time.Second))
	}
	return time.Duration((ramp + (u-inRamp)/rate) * float64(time.Second))
}

func (r *runner) openWorker(id int, arrive <-chan time.Time) {
	w := r.newWorker(id)
	defer w.conn.close()
	for {
		select {
		case intended := <-arrive:
			sent := time.Now()
			if r.ctx.Err() != nil || sent.After(r.stopAt()) {
				r.busy.Add(-1)
				return // no request starts after the window
			}
			_, ok := w.exchange(intended, sent, sent.Sub(intended), sent.Sub(intended) > time.Millisecond)
			r.busy.Add(-1)
			if !ok {
				return
			}
		case <-r.ctx.Done():
			return
		}
	}
}

func (r *runner) result(cost *costMeter, series []SecondRow, interrupted bool, end time.Time) *Result {
	s := r.s
	stop := r.stopAt()
	if end.Before(stop) {
		stop = end
	}
	seconds := max(stop.Sub(r.warmEnd).Seconds(), 0)
	meanThink := s.Think
	if s.TimerKind == TimerUniform {
		meanThink += s.ThinkDev / 2
	}
	if s.Model == ModelOpen {
		meanThink = time.Duration(float64(time.Second) / s.Rate)
	}
	res := &Result{
		Schema: SchemaVersion, Tool: "bbslab-loadtest", Name: s.Name, Settings: s,
		Start: r.start, MeasureStart: r.warmEnd, End: stop,
		MeasuredSeconds: Round3(seconds), Interrupted: interrupted,
		DrainSeconds: Round3(max(end.Sub(stop).Seconds(), 0)),
		Series:       series,
		Environment:  &Environment{Generator: ptr(generatorHost())},
	}
	labels, lag := r.rec.totals(len(r.reqs))
	all := NewTally()
	for i, t := range labels {
		all.add(t)
		res.Labels = append(res.Labels, t.Stats(r.reqs[i].label, s.Clients, seconds))
	}
	res.Total = all.Stats("TOTAL", s.Clients, seconds)
	if s.Model == ModelOpen {
		res.Open = &OpenStats{Arrivals: r.arrivals.Load(), Dropped: r.dropped.Load()}
	}
	res.Cost = cost.finish(lag, meanThink)
	if r.tl != nil {
		res.Timeline = r.tl.result(s.Warmup)
	}
	res.Warnings = Warnings(res)
	if res.Cost.Cores == nil && !interrupted {
		res.Warnings = append(res.Warnings, "the use of the generator's CPUs over the measured span (busy, others, steal) is not available on "+runtime.GOOS+": the cost leaves it out")
	}
	return res
}

// Warnings explains what limits the figures of res.
func Warnings(res *Result) []string {
	var w []string
	if res.Interrupted {
		w = append(w, "the run was interrupted; figures cover the part that ran")
	}
	if res.Cost.Bottleneck {
		for _, why := range res.Cost.Reasons {
			w = append(w, "the client may be the bottleneck: "+why)
		}
	}
	if res.Total.Requests == 0 {
		w = append(w, "no measured requests")
	}
	if res.Cost.CPUPercent == nil {
		w = append(w, "the generator's CPU time is not available on "+runtime.GOOS+": the cost leaves it out")
	}
	if res.Cost.PeakRSSBytes == nil {
		w = append(w, "the generator's peak resident memory is not available on "+runtime.GOOS+": the cost leaves it out")
	}
	if res.Settings.Model == ModelRate && res.Cost.LateRequests > 0 && res.Total.Requests > 0 {
		w = append(w, fmt.Sprintf("%d of %d requests started late (max %.3g ms behind schedule): responses outgrew the think time", res.Cost.LateRequests, res.Total.Requests, res.Cost.ScheduleLagMaxMs))
	}
	if res.Open != nil && res.Open.Dropped > 0 {
		w = append(w, fmt.Sprintf("open model: %d of %d arrivals dropped because all %d connections were busy", res.Open.Dropped, res.Open.Arrivals, res.Settings.Clients))
	}
	return w
}
