package behave

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// maxHistory bounds the schedules and one-off stalls a Behaviour keeps for
// Stalls: the oldest are forgotten first.
const maxHistory = 1000

// A Stall is one span during which the board took no work.
type Stall struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// A Behaviour holds the settings in force and the stalls' schedule. Its
// methods are safe for concurrent use; with no knob set, Wait and Current
// cost one atomic load each.
type Behaviour struct {
	cur atomic.Pointer[state] // nil when nothing is set

	mu      sync.Mutex
	periods []period // stall schedules, oldest first; the last may be open
	oneOffs []Stall  // stalls triggered by Trigger
}

// state is what is in force, replaced whole on every change.
type state struct {
	s      Settings
	period period // the stall schedule (every == 0: none)
	oneOff Stall  // the last triggered stall
}

// A period is a stall schedule from its epoch until it was replaced:
// stalls start at epoch + k*every (k >= 1) and last for.
type period struct {
	epoch, until time.Time // until zero: in force
	every, dur   time.Duration
}

// New returns a Behaviour with s in force from now; s must be valid.
func New(s Settings) *Behaviour {
	b := &Behaviour{}
	b.Set(s)
	return b
}

// Set puts s in force from now (s must be valid). When stall_every or
// stall_for change, the stall schedule starts again, its first stall one
// stall_every from now, and a scheduled stall in progress ends; otherwise
// the schedule goes on.
func (b *Behaviour) Set(s Settings) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	var old state
	if st := b.cur.Load(); st != nil {
		old = *st
	}
	next := &state{s: s, oneOff: old.oneOff}
	if s.StallEvery == old.s.StallEvery && s.StallFor == old.s.StallFor {
		next.period = old.period // the schedule goes on
	} else {
		if n := len(b.periods); n > 0 && b.periods[n-1].until.IsZero() {
			b.periods[n-1].until = now
		}
	}
	if s.StallEvery > 0 && next.period.every == 0 {
		next.period = period{epoch: now, every: s.StallEvery, dur: s.StallFor}
		b.periods = append(b.periods, next.period)
		if len(b.periods) > maxHistory {
			b.periods = b.periods[1:]
		}
	}
	if s.IsZero() && !now.Before(next.oneOff.End) {
		next = nil
	}
	b.cur.Store(next)
}

// Trigger starts a stall of d now (a one-off, besides any schedule); if
// one is in progress, the stall lasts until the later of the two ends.
func (b *Behaviour) Trigger(d time.Duration) Stall {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	next := &state{}
	if st := b.cur.Load(); st != nil {
		*next = *st
	}
	st := Stall{Start: now, End: now.Add(d)}
	if now.Before(next.oneOff.End) {
		st.Start = next.oneOff.Start
		if next.oneOff.End.After(st.End) {
			st.End = next.oneOff.End
		}
		b.oneOffs = b.oneOffs[:len(b.oneOffs)-1]
	}
	next.oneOff = st
	b.oneOffs = append(b.oneOffs, st)
	if len(b.oneOffs) > maxHistory {
		b.oneOffs = b.oneOffs[1:]
	}
	b.cur.Store(next)
	return st
}

// Current returns the settings in force and whether any knob is set.
func (b *Behaviour) Current() (Settings, bool) {
	st := b.cur.Load()
	if st == nil {
		return Settings{}, false
	}
	return st.s, true
}

// stallEnd returns when the stall in progress at now ends, or the zero
// time when none is.
func (st *state) stallEnd(now time.Time) time.Time {
	var end time.Time
	if !now.Before(st.oneOff.Start) && now.Before(st.oneOff.End) {
		end = st.oneOff.End
	}
	if p := st.period; p.every > 0 {
		k := now.Sub(p.epoch) / p.every
		if k >= 1 {
			s := p.epoch.Add(k * p.every)
			if e := s.Add(p.dur); now.Before(e) && e.After(end) {
				end = e
			}
		}
	}
	return end
}

// Wait holds the caller until the stall in progress, if any, has ended,
// and reports whether it waited. With no stall set it costs one atomic
// load. A stall set while it waits does not hold it longer; one that
// starts as it wakes holds it again.
func (b *Behaviour) Wait() bool {
	st := b.cur.Load()
	if st == nil {
		return false
	}
	waited := false
	for {
		now := time.Now()
		end := st.stallEnd(now)
		if end.IsZero() {
			return waited
		}
		waited = true
		time.Sleep(end.Sub(now))
		if st = b.cur.Load(); st == nil {
			return true
		}
	}
}

// Stalls returns the stalls that overlapped [from, to), scheduled and
// triggered, in order of start; a schedule replaced mid-stall cuts that
// stall at the change, as the gate did. At most limit are returned.
func (b *Behaviour) Stalls(from, to time.Time, limit int) []Stall {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []Stall
	add := func(s Stall) {
		if s.End.After(from) && s.Start.Before(to) {
			out = append(out, s)
		}
	}
	for _, p := range b.periods {
		end := p.until
		if end.IsZero() || end.After(to) {
			end = to
		}
		k := time.Duration(1)
		if from.After(p.epoch) {
			if k = from.Sub(p.epoch)/p.every - 1; k < 1 {
				k = 1
			}
		}
		for ; len(out) < limit; k++ {
			s := p.epoch.Add(k * p.every)
			if !s.Before(end) {
				break
			}
			e := s.Add(p.dur)
			if !p.until.IsZero() && e.After(p.until) {
				e = p.until
			}
			add(Stall{Start: s, End: e})
		}
	}
	for _, s := range b.oneOffs {
		add(s)
	}
	slices.SortFunc(out, func(a, b Stall) int { return a.Start.Compare(b.Start) })
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}
