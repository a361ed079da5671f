package loadtest

import (
	"errors"
	"fmt"
	"io"
	"time"

	"bbslab/internal/cli"
)

// Settings describe a run. Each setting is declared once, here: its tags
// give its flag of loadtest run and sweep (flag, help and default: read by
// cli.BindFlags), its key in an experiment file's [load] and [[run]]
// tables (toml: read by cli.DecodeTOML, durations as "5s") and its field
// in the result's JSON (json: settingsjson.go writes durations as
// milliseconds under a name ending in _ms, and reads schema version 1's
// bare nanoseconds too). A new knob is one field here, with its tags,
// plus the code that uses it; see docs/layout.md.
//
// Clients, Requests, StartAt and the timeline have flags of a form of
// their own (a list of counts for a sweep, -url and -scenario, a time
// read against the clock, -timeline with -timeline-n), which the command
// reads; Watcher, JTL and Observers are what the caller attaches.
type Settings struct {
	// Name labels the run in results and charts.
	Name string `json:"name,omitempty" toml:"-" flag:"name" help:"name of the run (curve name in charts)"`
	// Requests are the requests clients choose from by weight.
	Requests []Request `json:"requests" toml:"request"`
	// Clients is the number of clients (connections). In the open model it
	// caps the requests in flight.
	Clients int `json:"clients" toml:"-"`
	// Duration is the measured time after the warm-up. MaxRequests stops
	// the run after that many measured requests. One of them is required.
	Duration    time.Duration `json:"duration_ms" toml:"duration" flag:"duration" help:"measured duration after the warm-up (this or -requests is required)"`
	MaxRequests int64         `json:"max_requests,omitempty" toml:"max_requests" flag:"requests" help:"stop after this many measured requests"`
	// MaxDuration is a hard bound on the time requests start in, warm-up
	// included (default: warm-up + duration, or one hour when only
	// MaxRequests is set); the run then drains for at most Drain.
	MaxDuration time.Duration `json:"max_duration_ms" toml:"max_duration" flag:"max-duration" help:"hard bound on the time requests start in (default warmup+duration, or 1h with -requests); the run then drains (-drain)"`
	// Warmup is discarded from the results; Rampup spreads client starts
	// over this time (delay and rate models) or climbs the open model's
	// arrival rate linearly from zero to Rate.
	Warmup time.Duration `json:"warmup_ms" toml:"warmup" flag:"warmup" help:"warm-up discarded from the results"`
	Rampup time.Duration `json:"rampup_ms" toml:"rampup" flag:"rampup" help:"spread client starts over this time (open model: climb the arrival rate from 0 to -rate)"`
	// Model is the load model (delay, rate or open).
	Model Model `json:"model" toml:"model" flag:"model" default:"delay" help:"load model: delay (Fixed Delay), rate (Fixed Rate) or open"`
	// Think, ThinkDev and TimerKind set the think time (see TimerKind).
	Think     time.Duration `json:"think_ms" toml:"think" flag:"think" help:"think time between requests (offset or mean of the timer)"`
	ThinkDev  time.Duration `json:"think_dev_ms,omitempty" toml:"think_dev" flag:"think-dev" help:"timer deviation (gaussian) or range (uniform)"`
	TimerKind TimerKind     `json:"timer" toml:"timer" flag:"timer" default:"constant" help:"think timer: constant, uniform, gaussian or poisson (JMeter's)"`
	// TimerSlack lets a client's request start up to this long after it
	// is due so that clients due close together share one wake-up, as the
	// kernel's timer slack does. It trades latency for generator CPU:
	// latency counted from the intended start grows by up to the slack
	// (see TimerLag in the cost). Zero (the default) wakes each client when
	// it is due.
	TimerSlack time.Duration `json:"timer_slack_ms,omitempty" toml:"timer_slack" flag:"timer-slack" help:"let requests start up to this late so that clients due together share a wake-up (less generator CPU, up to this much more latency)"`
	// Rate is the open model's arrival rate per second.
	Rate float64 `json:"rate,omitempty" toml:"rate" flag:"rate" help:"arrivals per second (open model)"`
	// Timeout bounds connect and each whole exchange.
	Timeout time.Duration `json:"timeout_ms" toml:"timeout" flag:"timeout" default:"10s" help:"connect and response timeout"`
	// Drain bounds the wait, after the measured window ends, for the
	// requests still in flight (default: Timeout, so that each ends on its
	// own, answered or timed out). No request starts after the window;
	// those still in flight when the wait ends, or when the run is
	// interrupted, are abandoned and counted as "cutoff" errors.
	Drain time.Duration `json:"drain_ms" toml:"drain" flag:"drain" help:"after the measured window, wait at most this long for requests in flight (default -timeout); those still in flight then are counted as cutoff errors"`
	// DisableKeepAlive opens a new connection for every request.
	DisableKeepAlive bool `json:"disable_keepalive,omitempty" toml:"disable_keepalive" flag:"keepalive,negate" help:"reuse connections (false: a new connection per request)"`
	// Insecure skips the verification of https:// servers' certificates
	// (curl's -k).
	Insecure bool `json:"insecure,omitempty" toml:"insecure" flag:"insecure" help:"https: skip the verification of the server's certificate (curl's -k)"`
	// StartAt, when set, is when the run starts its clients: Run waits
	// for it (ending ctx ends the wait), and the run's schedule, warm-up and
	// measured window count from it, so that generators given the same
	// StartAt measure the same window (Result.MeasureStart is StartAt plus
	// Warmup, to the nanosecond) and their per-second rows line up. It
	// must lie at most StartAtPast before the call and StartAtAhead after
	// it (ParseStartAt). A sweep starts its first step at it.
	StartAt time.Time `json:"start_at,omitzero" toml:"-"`
	// Seed makes think times, start offsets and choices reproducible
	// (0 picks one from the clock; the one used is recorded).
	Seed uint64 `json:"seed" toml:"seed" flag:"seed" help:"random seed (0: from the clock)"`
	// TimelineRequests, when positive, records the first TimelineRequests
	// requests one by one and a per-100 ms series from the start
	// (Result.Timeline).
	TimelineRequests int `json:"timeline,omitempty" toml:"timeline"`

	// Watcher, when set, watches the target during the run (package
	// watch: its stats JSON and profiles); what it saw goes into
	// Result.Server, Result.Profiles, Result.Environment.Server and
	// Result.Warnings.
	Watcher Watcher `json:"-" toml:"-"`
	// JTL, when set, receives one JMeter CSV line per measured request,
	// written from the clients' own buffers (see the package doc).
	JTL io.Writer `json:"-" toml:"-"`
	// Observers are told of each second's row as the run goes, and of its
	// end (see Observer): a Progress line, the live dashboard's feed.
	Observers []Observer `json:"-" toml:"-"`
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
	cli.FillDefaults(s) // the default tags: model, timer, timeout
	var err error
	if s.Model, err = ParseModel(string(s.Model)); err != nil {
		return err
	}
	if s.TimerKind, err = ParseTimer(string(s.TimerKind)); err != nil {
		return err
	}
	if s.Model == ModelOpen && s.Rate <= 0 {
		return fmt.Errorf("rate %g: the open model needs a positive arrival rate", s.Rate)
	}
	if s.Drain == 0 {
		s.Drain = s.Timeout
	}
	if !s.StartAt.IsZero() {
		if err := checkStartAt(s.StartAt, time.Now()); err != nil {
			return fmt.Errorf("start at: %w", err)
		}
	}
	if s.TimelineRequests < 0 || s.TimelineRequests > MaxTimeline {
		return fmt.Errorf("timeline %d: want 0 (off) to %d requests", s.TimelineRequests, MaxTimeline)
	}
	for i, r := range s.Requests {
		if _, err := compileRequest(r, i, true); err != nil {
			return fmt.Errorf("request %d: %w", i+1, err)
		}
	}
	return nil
}
