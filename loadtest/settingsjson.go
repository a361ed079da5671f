package loadtest

import (
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// settingsPlain is Settings without its methods: its durations are
// tagged json:"-" and written by MarshalJSON.
type settingsPlain Settings

// settingsDurations are Settings' durations as the JSON gives them since
// schema version 2: milliseconds, the unit in the name.
type settingsDurations struct {
	DurationMs    float64 `json:"duration_ms"`
	MaxDurationMs float64 `json:"max_duration_ms"`
	WarmupMs      float64 `json:"warmup_ms"`
	RampupMs      float64 `json:"rampup_ms"`
	ThinkMs       float64 `json:"think_ms"`
	ThinkDevMs    float64 `json:"think_dev_ms,omitempty"`
	TimerSlackMs  float64 `json:"timer_slack_ms,omitempty"`
	TimeoutMs     float64 `json:"timeout_ms"`
	DrainMs       float64 `json:"drain_ms"`
}

// settingsV1 are the durations as schema version 1 wrote them:
// nanoseconds (Go's time.Duration) under bare names.
type settingsV1 struct {
	Duration    *time.Duration `json:"duration"`
	MaxDuration *time.Duration `json:"max_duration"`
	Warmup      *time.Duration `json:"warmup"`
	Rampup      *time.Duration `json:"rampup"`
	Think       *time.Duration `json:"think"`
	ThinkDev    *time.Duration `json:"think_dev"`
	TimerSlack  *time.Duration `json:"timer_slack"`
	Timeout     *time.Duration `json:"timeout"`
	Drain       *time.Duration `json:"drain"`
}

// durMs is d in milliseconds, to the nanosecond.
func durMs(d time.Duration) float64 { return float64(d) / 1e6 }

// msDur is the duration of v milliseconds, rounded to the nanosecond.
func msDur(v float64) time.Duration { return time.Duration(math.Round(v * 1e6)) }

// MarshalJSON writes s with its durations in milliseconds (SCHEMA.md).
func (s Settings) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		settingsPlain
		settingsDurations
	}{settingsPlain(s), settingsDurations{
		DurationMs: durMs(s.Duration), MaxDurationMs: durMs(s.MaxDuration),
		WarmupMs: durMs(s.Warmup), RampupMs: durMs(s.Rampup),
		ThinkMs: durMs(s.Think), ThinkDevMs: durMs(s.ThinkDev), TimerSlackMs: durMs(s.TimerSlack),
		TimeoutMs: durMs(s.Timeout), DrainMs: durMs(s.Drain),
	}})
}

// UnmarshalJSON reads settings as MarshalJSON writes them and as schema
// version 1 wrote them (nanoseconds under bare names: "think": 100000000).
// A file holding both forms of one duration is refused.
func (s *Settings) UnmarshalJSON(b []byte) error {
	var v struct {
		*settingsPlain
		DurationMs    *float64 `json:"duration_ms"`
		MaxDurationMs *float64 `json:"max_duration_ms"`
		WarmupMs      *float64 `json:"warmup_ms"`
		RampupMs      *float64 `json:"rampup_ms"`
		ThinkMs       *float64 `json:"think_ms"`
		ThinkDevMs    *float64 `json:"think_dev_ms"`
		TimerSlackMs  *float64 `json:"timer_slack_ms"`
		TimeoutMs     *float64 `json:"timeout_ms"`
		DrainMs       *float64 `json:"drain_ms"`
		settingsV1
	}
	v.settingsPlain = (*settingsPlain)(s)
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	for _, d := range []struct {
		name string
		ms   *float64
		ns   *time.Duration
		dst  *time.Duration
	}{
		{"duration", v.DurationMs, v.settingsV1.Duration, &s.Duration},
		{"max_duration", v.MaxDurationMs, v.settingsV1.MaxDuration, &s.MaxDuration},
		{"warmup", v.WarmupMs, v.settingsV1.Warmup, &s.Warmup},
		{"rampup", v.RampupMs, v.settingsV1.Rampup, &s.Rampup},
		{"think", v.ThinkMs, v.settingsV1.Think, &s.Think},
		{"think_dev", v.ThinkDevMs, v.settingsV1.ThinkDev, &s.ThinkDev},
		{"timer_slack", v.TimerSlackMs, v.settingsV1.TimerSlack, &s.TimerSlack},
		{"timeout", v.TimeoutMs, v.settingsV1.Timeout, &s.Timeout},
		{"drain", v.DrainMs, v.settingsV1.Drain, &s.Drain},
	} {
		switch {
		case d.ms != nil && d.ns != nil:
			return fmt.Errorf("settings: both %s (nanoseconds, schema 1) and %s_ms (schema 2)", d.name, d.name)
		case d.ms != nil:
			*d.dst = msDur(*d.ms)
		case d.ns != nil:
			*d.dst = *d.ns
		}
	}
	return nil
}
