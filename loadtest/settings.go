package loadtest

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"time"

	"bbslab/internal/cli"
)

// Settings describe a run. Each setting is declared once, here: its tags give its flag
// (cli.BindFlags), file key (cli.DecodeTOML) and result JSON (ms durations: settingsjson.go).
type Settings struct {
	Name string `json:"name,omitempty" toml:"-" flag:"name" help:"name of the run (curve name in charts)"`
	// Requests are the requests clients choose from by weight.
	Requests []Request `json:"requests" toml:"request"`
	// Clients is the number of connections (the open model's cap).
	Clients          int           `json:"clients" toml:"-"`
	Duration         time.Duration `json:"duration_ms" toml:"duration" flag:"duration" help:"measured duration after the warm-up (this or -requests is required)"`
	MaxRequests      int64         `json:"max_requests,omitempty" toml:"max_requests" flag:"requests" help:"stop after this many measured requests"`
	MaxDuration      time.Duration `json:"max_duration_ms" toml:"max_duration" flag:"max-duration" help:"hard bound on the time requests start in (default warmup+duration, or 1h with -requests); the run then drains (-drain)"`
	Warmup           time.Duration `json:"warmup_ms" toml:"warmup" flag:"warmup" help:"warm-up discarded from the results"`
	Rampup           time.Duration `json:"rampup_ms" toml:"rampup" flag:"rampup" help:"spread client starts over this time (open model: climb the arrival rate from 0 to -rate)"`
	Model            Model         `json:"model" toml:"model" flag:"model" default:"delay" help:"load model: delay (Fixed Delay), rate (Fixed Rate) or open"`
	Think            time.Duration `json:"think_ms" toml:"think" flag:"think" help:"think time between requests (offset or mean of the timer)"`
	ThinkDev         time.Duration `json:"think_dev_ms,omitempty" toml:"think_dev" flag:"think-dev" help:"timer deviation (gaussian) or range (uniform)"`
	TimerKind        TimerKind     `json:"timer" toml:"timer" flag:"timer" default:"constant" help:"think timer: constant, uniform, gaussian or poisson (JMeter's)"`
	TimerSlack       time.Duration `json:"timer_slack_ms,omitempty" toml:"timer_slack" flag:"timer-slack" help:"let requests start up to this late so that clients due together share a wake-up (less generator CPU, up to this much more latency)"`
	Rate             float64       `json:"rate,omitempty" toml:"rate" flag:"rate" help:"arrivals per second (open model)"`
	Timeout          time.Duration `json:"timeout_ms" toml:"timeout" flag:"timeout" default:"10s" help:"connect and response timeout"`
	Drain            time.Duration `json:"drain_ms" toml:"drain" flag:"drain" help:"after the measured window, wait at most this long for requests in flight (default -timeout); those still in flight then are counted as cutoff errors"`
	DisableKeepAlive bool          `json:"disable_keepalive,omitempty" toml:"disable_keepalive" flag:"keepalive,negate" help:"reuse connections (false: a new connection per request)"`
	Insecure         bool          `json:"insecure,omitempty" toml:"insecure" flag:"insecure" help:"https: skip the verification of the server's certificate (curl's -k)"`
	Seed             uint64        `json:"seed" toml:"seed" flag:"seed" help:"random seed (0: from the clock)"`
	// TimelineRequests is how many first requests Result.Timeline keeps.
	TimelineRequests int `json:"timeline,omitempty" toml:"timeline"`

	Watcher Watcher `json:"-" toml:"-"`
	// JTL, when set, receives one JMeter CSV line per measured request.
	JTL       io.Writer  `json:"-" toml:"-"`
	Observers []Observer `json:"-" toml:"-"`
}

// Validate checks s and fills in defaults. Its errors name the setting.
func (s *Settings) Validate() error {
	_, err := s.validate()
	return err
}

// validate is Validate, returning the requests compiled for the wire.
func (s *Settings) validate() ([]*compiled, error) {
	if len(s.Requests) == 0 {
		return nil, errors.New("no requests: give at least one URL or a scenario")
	}
	if s.Clients < 1 {
		return nil, fmt.Errorf("clients %d: want at least 1", s.Clients)
	}
	if s.Duration < 0 || s.MaxRequests < 0 || s.Warmup < 0 || s.Rampup < 0 || s.Think < 0 || s.ThinkDev < 0 || s.Timeout < 0 || s.Drain < 0 || s.MaxDuration < 0 || s.TimerSlack < 0 {
		return nil, errors.New("durations and counts must not be negative")
	}
	if s.TimerSlack > time.Second {
		return nil, fmt.Errorf("timer slack %v: want at most 1s", s.TimerSlack)
	}
	if s.Duration == 0 && s.MaxRequests == 0 {
		return nil, errors.New("give a duration or a number of requests")
	}
	if s.MaxDuration == 0 {
		s.MaxDuration = time.Hour
		if s.Duration > 0 {
			s.MaxDuration = s.Warmup + s.Duration
		}
	}
	cli.FillDefaults(s) // the default tags: model, timer, timeout
	var err error
	if s.Model, err = ParseModel(string(s.Model)); err != nil {
		return nil, err
	}
	if s.TimerKind, err = ParseTimer(string(s.TimerKind)); err != nil {
		return nil, err
	}
	if s.Model == ModelOpen && s.Rate <= 0 {
		return nil, fmt.Errorf("rate %g: the open model needs a positive arrival rate", s.Rate)
	}
	s.Drain = cmp.Or(s.Drain, s.Timeout)
	if s.TimelineRequests < 0 || s.TimelineRequests > MaxTimeline {
		return nil, fmt.Errorf("timeline %d: want 0 (off) to %d requests", s.TimelineRequests, MaxTimeline)
	}
	var reqs []*compiled
	for i, r := range s.Requests {
		c, err := compileRequest(r, i, !s.DisableKeepAlive)
		if err != nil {
			return nil, fmt.Errorf("request %d: %w", i+1, err)
		}
		reqs = append(reqs, c)
	}
	return reqs, nil
}
