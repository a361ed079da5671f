package loadtest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestSettingsJSONInMilliseconds(t *testing.T) {
	s := Settings{Name: "n", Clients: 3, Duration: 10 * time.Second, Warmup: 1500 * time.Millisecond,
		Think: 250 * time.Microsecond, Timeout: 10 * time.Second, Drain: time.Second, Model: ModelRate, Insecure: true}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{`"duration_ms":10000`, `"warmup_ms":1500`, `"think_ms":0.25`, `"timeout_ms":10000`, `"drain_ms":1000`, `"rampup_ms":0`, `"insecure":true`, `"clients":3`} {
		if !strings.Contains(got, want) {
			t.Errorf("json.Marshal(settings) = %s; want %s in it", got, want)
		}
	}
	for _, absent := range []string{`"duration":`, `"think":`, `"timer_slack_ms"`, `"think_dev_ms"`} {
		if strings.Contains(got, absent) {
			t.Errorf("json.Marshal(settings) = %s; want no %s", got, absent)
		}
	}
	var back Settings
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Duration != s.Duration || back.Warmup != s.Warmup || back.Think != s.Think || back.Drain != s.Drain || back.Clients != 3 || back.Model != ModelRate || !back.Insecure {
		t.Errorf("round trip = %+v; want %+v", back, s)
	}
}

func TestSettingsJSONReadsVersion1(t *testing.T) {
	var s Settings
	v1 := `{"clients":5,"duration":10000000000,"warmup":2000000000,"think":100000000,"timer_slack":500000,"timeout":10000000000,"drain":10000000000,"model":"delay"}`
	if err := json.Unmarshal([]byte(v1), &s); err != nil {
		t.Fatal(err)
	}
	if s.Clients != 5 || s.Duration != 10*time.Second || s.Warmup != 2*time.Second || s.Think != 100*time.Millisecond || s.TimerSlack != 500*time.Microsecond || s.Timeout != 10*time.Second {
		t.Errorf("settings read from version 1 = %+v", s)
	}
	if err := json.Unmarshal([]byte(`{"think":1,"think_ms":1}`), &s); err == nil || !strings.Contains(err.Error(), "think") {
		t.Errorf("settings with both think and think_ms: error %v; want one naming think", err)
	}
}
