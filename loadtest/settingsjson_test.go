package loadtest

import (
	"encoding/json"
	"reflect"
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

// TestSettingsJSONEveryDuration sets every duration of Settings to its own
// value and reads it back, from schema 2 (milliseconds under _ms) and from
// schema 1 (nanoseconds under the bare name): a new duration is written
// and read as the others are, with nothing listed by hand.
func TestSettingsJSONEveryDuration(t *testing.T) {
	var s Settings
	sv := reflect.ValueOf(&s).Elem()
	v1 := map[string]any{}
	n := 0
	for i := range sv.NumField() {
		f := sv.Type().Field(i)
		if f.Type != reflect.TypeFor[time.Duration]() {
			continue
		}
		n++
		d := time.Duration(n)*time.Millisecond + time.Duration(n)*time.Nanosecond
		sv.Field(i).SetInt(int64(d))
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		v1[strings.TrimSuffix(name, "_ms")] = int64(d)
	}
	if n < 9 {
		t.Fatalf("Settings has %d durations; want at least the 9 of schema 1", n)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Settings
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	old, _ := json.Marshal(v1)
	var fromV1 Settings
	if err := json.Unmarshal(old, &fromV1); err != nil {
		t.Fatal(err)
	}
	for i := range sv.NumField() {
		if sv.Type().Field(i).Type != reflect.TypeFor[time.Duration]() {
			continue
		}
		want := sv.Field(i).Int()
		if got := reflect.ValueOf(back).Field(i).Int(); got != want {
			t.Errorf("%s: %s read back as %v; want %v", sv.Type().Field(i).Name, b, time.Duration(got), time.Duration(want))
		}
		if got := reflect.ValueOf(fromV1).Field(i).Int(); got != want {
			t.Errorf("%s: %s (schema 1) read as %v; want %v", sv.Type().Field(i).Name, old, time.Duration(got), time.Duration(want))
		}
	}
}

// TestSettingsUnmarshalKeepsUnsetFields checks that reading settings
// writes only what the JSON gives, as encoding/json does.
func TestSettingsUnmarshalKeepsUnsetFields(t *testing.T) {
	s := Settings{Name: "kept", Think: time.Second, Clients: 2}
	if err := json.Unmarshal([]byte(`{"clients":5,"warmup_ms":20}`), &s); err != nil {
		t.Fatal(err)
	}
	if s.Name != "kept" || s.Think != time.Second || s.Clients != 5 || s.Warmup != 20*time.Millisecond {
		t.Errorf("Unmarshal over {kept, think 1s, 2 clients} = %+v; want name and think kept, 5 clients, warm-up 20ms", s)
	}
}
