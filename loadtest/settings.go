package loadtest

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// Settings describe a run. In JSON every duration is a number of
// milliseconds named with _ms (settingsjson.go); version 1 files' bare
// nanoseconds are read too.
type Settings struct {
	// Name labels the run in results and charts.
	Name string `json:"name,omitempty"`
	// Requests are the requests clients choose from by weight.
	Requests []Request `json:"requests"`
	// Clients is the number of clients (connections). In the open model it
	// caps the requests in flight.
	Clients int `json:"clients"`
	// Duration is the measured time after the warm-up. MaxRequests stops
	// the run after that many measured requests. One of them is required.
	Duration    time.Duration `json:"-"`
	MaxRequests int64         `json:"max_requests,omitempty"`
	// MaxDuration is a hard bound on the time requests start in, warm-up
	// included (default: warm-up + duration, or one hour when only
	// MaxRequests is set); the run then drains for at most Drain.
	MaxDuration time.Duration `json:"-"`
	// Warmup is discarded from the results; Rampup spreads client starts
	// over this time (delay and rate models) or climbs the open model's
	// arrival rate linearly from zero to Rate.
	Warmup time.Duration `json:"-"`
	Rampup time.Duration `json:"-"`
	// Model is the load model (delay, rate or open).
	Model Model `json:"model"`
	// Think, ThinkDev and Timer set the think time (see TimerKind).
	Think    time.Duration `json:"-"`
	ThinkDev time.Duration `json:"-"`
	Timer    TimerKind     `json:"timer"`
	// TimerSlack lets a client's request start up to this long after it
	// is due so that clients due close together share one wake-up, as the
	// kernel's timer slack does. It trades latency for generator CPU: with
	// 1,000 clients at 1/s each, 0.5 ms of slack cut the generator's CPU
	// from 5.4 % of a core to 4.3 % (medians of 3 runs of loadtest bench),
	// and latency counted from the intended start grows by up to the slack
	// (see TimerLag in the cost). Zero (the default) wakes each client when
	// it is due.
	TimerSlack time.Duration `json:"-"`
	// Rate is the open model's arrival rate per second.
	Rate float64 `json:"rate,omitempty"`
	// Timeout bounds connect and each whole exchange (default 10 s).
	Timeout time.Duration `json:"-"`
	// Drain bounds the wait, after the measured window ends, for the
	// requests still in flight (default: Timeout, so that each ends on its
	// own, answered or timed out). No request starts after the window;
	// those still in flight when the wait ends, or when the run is
	// interrupted, are abandoned and counted as "cutoff" errors.
	Drain time.Duration `json:"-"`
	// DisableKeepAlive opens a new connection for every request.
	DisableKeepAlive bool `json:"disable_keepalive,omitempty"`
	// Insecure skips the verification of https:// servers' certificates
	// (curl's -k).
	Insecure bool `json:"insecure,omitempty"`
	// StartAt, when set, is when the run starts its clients: Run waits
	// for it (ending ctx ends the wait), and the run's schedule, warm-up and
	// measured window count from it, so that generators given the same
	// StartAt measure the same window (Result.MeasureStart is StartAt plus
	// Warmup, to the nanosecond) and their per-second rows line up. It
	// must lie at most StartAtPast before the call and StartAtAhead after
	// it (ParseStartAt). A sweep starts its first step at it.
	StartAt time.Time `json:"start_at,omitzero"`
	// Seed makes think times, start offsets and choices reproducible
	// (0 picks one from the clock; the one used is recorded).
	Seed uint64 `json:"seed"`

	// Watch, when set, watches the target during the run (package watch:
	// its stats JSON and profiles); what it saw goes into Result.Server,
	// Result.Profiles, Result.Environment.Server and Result.Warnings.
	Watch Watcher `json:"-"`
	// Timeline, when positive, records the first Timeline requests one by
	// one and a per-100 ms series from the start (Result.Timeline).
	Timeline int `json:"timeline,omitempty"`

	// JTL, when set, receives one JMeter CSV line per measured request,
	// written from the clients' own buffers (see the package doc).
	JTL io.Writer `json:"-"`
	// Observers are told of each second's row as the run goes, and of its
	// end (see Observer): a Progress line, the live dashboard's feed.
	Observers []Observer `json:"-"`
}

// Validate checks s and fills in defaults. Its errors name the setting.
func (s *Settings) Validate() error {
	if len(s.Requests) == 0 {
		return errors.New("no requests: give at least one URL or a scenario")
	}
	if s.Clients < 1 {
		return fmt.Errorf("clients %d: want at least 1", s.Clients)
	}
	if s.Duration < 0 || s.MaxRequests < 0 || s.Warmup < 0 || s.Rampup < 0 || s.Think < 0 || s.ThinkDev < 0 || s.Timeout < 0 || s.Drain < 0 || s.MaxDuration < 0 || s.TimerSlack < 0 {
		return errors.New("durations and counts must not be negative")
	}
	if s.TimerSlack > time.Second {
		return fmt.Errorf("timer slack %v: want at most 1s", s.TimerSlack)
	}
	if s.Duration == 0 && s.MaxRequests == 0 {
		return errors.New("give a duration or a number of requests")
	}
	if s.MaxDuration == 0 {
		if s.Duration > 0 {
			s.MaxDuration = s.Warmup + s.Duration
		} else {
			s.MaxDuration = time.Hour
		}
	}
	var err error
	if s.Model, err = ParseModel(string(s.Model)); err != nil { // "" is delay
		return err
	}
	if s.Timer, err = ParseTimer(string(s.Timer)); err != nil { // "" is constant
		return err
	}
	if s.Model == ModelOpen && s.Rate <= 0 {
		return fmt.Errorf("rate %g: the open model needs a positive arrival rate", s.Rate)
	}
	if s.Timeout == 0 {
		s.Timeout = 10 * time.Second
	}
	if s.Drain == 0 {
		s.Drain = s.Timeout
	}
	if !s.StartAt.IsZero() {
		if err := checkStartAt(s.StartAt, time.Now()); err != nil {
			return fmt.Errorf("start at: %w", err)
		}
	}
	if s.Timeline < 0 || s.Timeline > MaxTimeline {
		return fmt.Errorf("timeline %d: want 0 (off) to %d requests", s.Timeline, MaxTimeline)
	}
	for i, r := range s.Requests {
		if _, err := compileRequest(r, i, true); err != nil {
			return fmt.Errorf("request %d: %w", i+1, err)
		}
	}
	return nil
}
