package behave

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestParseDelay(t *testing.T) {
	ms := time.Millisecond
	for _, tt := range []struct {
		in   string
		u    []float64 // draws
		want []time.Duration
	}{
		{"", []float64{0.5}, []time.Duration{0}},
		{"0s", []float64{0.5}, []time.Duration{0}},
		{"5ms", []float64{0, 0.99}, []time.Duration{5 * ms, 5 * ms}},
		{"uniform:1ms-9ms", []float64{0, 0.5}, []time.Duration{1 * ms, 5 * ms}},
		{"exp:5ms", []float64{0, 1 - 1/2.718281828459045}, []time.Duration{0, 5 * ms}},
		{"10ms:50,100ms:10", []float64{0, 0.49, 0.5, 0.59, 0.6, 0.99}, []time.Duration{10 * ms, 10 * ms, 100 * ms, 100 * ms, 0, 0}},
		{"10ms:100", []float64{0.999}, []time.Duration{10 * ms}},
	} {
		d, err := ParseDelay(tt.in)
		if err != nil {
			t.Errorf("ParseDelay(%q) = %v", tt.in, err)
			continue
		}
		for i, u := range tt.u {
			got := d.Draw(u)
			if diff := got - tt.want[i]; diff < -time.Microsecond || diff > time.Microsecond {
				t.Errorf("ParseDelay(%q).Draw(%v) = %v; want %v", tt.in, u, got, tt.want[i])
			}
		}
		if tt.in != "" && d.IsZero() != (tt.want[0] == 0 && len(tt.want) == 1 && tt.in == "0s") {
			t.Errorf("ParseDelay(%q).IsZero() = %v", tt.in, d.IsZero())
		}
	}
	for _, in := range []string{"5", "-1ms", "2m", "uniform:9ms-1ms", "uniform:1ms", "exp:0s", "exp:x", "10ms:60,20ms:50", "10ms:50,20ms", "10ms:-1", "x:5"} {
		if _, err := ParseDelay(in); err == nil {
			t.Errorf("ParseDelay(%q) = nil error; want one", in)
		}
	}
}

func TestDelaySample(t *testing.T) {
	d, _ := ParseDelay("uniform:1ms-3ms")
	for range 100 {
		if v := d.Sample(); v < time.Millisecond || v > 3*time.Millisecond {
			t.Fatalf("uniform:1ms-3ms sampled %v", v)
		}
	}
}

func TestParseStatuses(t *testing.T) {
	for _, tt := range []struct {
		in   string
		u    []float64
		want []int
	}{
		{"503", []float64{0, 0.999}, []int{503, 503}},
		{"503:10,429:5", []float64{0.05, 0.1, 0.14, 0.151, 0.9}, []int{503, 429, 429, 0, 0}},
	} {
		s, err := ParseStatuses(tt.in)
		if err != nil {
			t.Fatalf("ParseStatuses(%q) = %v", tt.in, err)
		}
		for i, u := range tt.u {
			if got := s.Draw(u); got != tt.want[i] {
				t.Errorf("ParseStatuses(%q).Draw(%v) = %d; want %d", tt.in, u, got, tt.want[i])
			}
		}
	}
	for _, in := range []string{"", "99", "150", "600", "abc", "503:101", "503:60,500:50", "503:x"} {
		if _, err := ParseStatuses(in); err == nil {
			t.Errorf("ParseStatuses(%q) = nil error; want one", in)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := []Settings{{}, {StallEvery: 10 * time.Second, StallFor: time.Second}, {ErrorStatus: 503, ErrorShare: 0.01}, {Size: 2048}}
	for _, s := range ok {
		if err := s.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v", s, err)
		}
	}
	for _, tt := range []struct {
		s    Settings
		want string
	}{
		{Settings{StallEvery: -1}, "stall_every"},
		{Settings{StallEvery: 2 * time.Hour, StallFor: time.Second}, "stall_every"},
		{Settings{StallFor: time.Second}, "stall_for"},
		{Settings{StallEvery: time.Second, StallFor: time.Second}, "stall_for"},
		{Settings{StallEvery: time.Second}, "stall_for"},
		{Settings{ErrorShare: 0.5}, "error_status"},
		{Settings{ErrorShare: 1.5, ErrorStatus: 503}, "error_share"},
		{Settings{ErrorStatus: 700}, "error_status"},
		{Settings{Size: -1}, "size"},
		{Settings{Size: MaxSize + 1}, "size"},
	} {
		if err := tt.s.Validate(); err == nil || !strings.HasPrefix(err.Error(), tt.want+" = ") {
			t.Errorf("Validate(%+v) = %v; want an error naming %s", tt.s, err, tt.want)
		}
	}
}

func TestSet(t *testing.T) {
	var s Settings
	for k, v := range map[string]string{"stall_every": "400ms", "stall_for": "200ms", "delay": "exp:1ms", "error_status": "503", "error_share": "0.25", "size": "100"} {
		if err := s.Set(k, v); err != nil {
			t.Fatalf("Set(%q, %q) = %v", k, v, err)
		}
	}
	if s.StallEvery != 400*time.Millisecond || s.StallFor != 200*time.Millisecond || s.Delay.String() != "exp:1ms" || s.ErrorStatus != 503 || s.ErrorShare != 0.25 || s.Size != 100 {
		t.Errorf("after Set: %+v", s)
	}
	for _, k := range Keys {
		if err := s.Set(k, "bogus"); err == nil || !strings.HasPrefix(err.Error(), k) {
			t.Errorf("Set(%q, bogus) = %v; want an error naming %s", k, err, k)
		}
	}
	if err := s.Set("nope", "1"); err == nil || !strings.HasPrefix(err.Error(), "nope") {
		t.Errorf("Set(nope) = %v", err)
	}
}

func TestOverride(t *testing.T) {
	o, err := ParseOverride(url.Values{"delay": {"5ms"}, "status": {"418"}, "size": {"0"}})
	if err != nil {
		t.Fatal(err)
	}
	s := Settings{Size: 10}
	p := s.Plan(o)
	if p.Delay != 5*time.Millisecond || p.Status != 418 || p.Size != 0 {
		t.Errorf("Plan(override) = %+v; want 5ms, 418, 0", p)
	}
	if p := s.Plan(Override{}); p.Delay != 0 || p.Status != 0 || p.Size != 10 {
		t.Errorf("Plan(no override) = %+v; want 0, 0, 10", p)
	}
	if p := (&Settings{}).Plan(Override{}); p.Size != -1 {
		t.Errorf("Plan() size = %d; want -1 (as it is)", p.Size)
	}
	for _, k := range []string{"delay", "status", "size"} {
		if _, err := ParseOverride(url.Values{k: {"bad"}}); err == nil || !strings.HasPrefix(err.Error(), k+":") {
			t.Errorf("ParseOverride(%s=bad) = %v; want an error naming %s", k, err, k)
		}
	}
}

func TestTriggerAndWait(t *testing.T) {
	b := New(Settings{})
	if b.Wait() {
		t.Fatal("Wait with nothing set waited")
	}
	if _, on := b.Current(); on {
		t.Fatal("Current: on with nothing set")
	}
	st := b.Trigger(50 * time.Millisecond)
	if !b.Wait() {
		t.Fatal("Wait during a triggered stall did not wait")
	}
	if now := time.Now(); now.Before(st.End) {
		t.Errorf("Wait returned at %v, before the stall's end %v", now, st.End)
	}
	if b.Wait() {
		t.Error("Wait after the stall waited")
	}
	got := b.Stalls(st.Start.Add(-time.Second), time.Now(), 10)
	if len(got) != 1 || !got[0].Start.Equal(st.Start) || !got[0].End.Equal(st.End) {
		t.Errorf("Stalls = %v; want [%v]", got, st)
	}
}

func TestSchedule(t *testing.T) {
	b := New(Settings{StallEvery: time.Second, StallFor: 100 * time.Millisecond})
	st := b.cur.Load()
	e := st.period.epoch
	for _, tt := range []struct {
		at   time.Duration
		want time.Duration // end after epoch; 0 = none
	}{
		{0, 0}, {500 * time.Millisecond, 0}, {time.Second, 1100 * time.Millisecond},
		{1050 * time.Millisecond, 1100 * time.Millisecond}, {1100 * time.Millisecond, 0}, {2099 * time.Millisecond, 2100 * time.Millisecond},
	} {
		got := st.stallEnd(e.Add(tt.at))
		want := time.Time{}
		if tt.want > 0 {
			want = e.Add(tt.want)
		}
		if !got.Equal(want) {
			t.Errorf("stallEnd(epoch+%v) = %v; want epoch+%v", tt.at, got.Sub(e), tt.want)
		}
	}
	got := b.Stalls(e.Add(500*time.Millisecond), e.Add(3050*time.Millisecond), 10)
	if len(got) != 3 || !got[0].Start.Equal(e.Add(time.Second)) || !got[2].End.Equal(e.Add(3100*time.Millisecond)) {
		t.Errorf("Stalls over 0.5s..3.05s = %v; want 3 starting at 1s, 2s, 3s", got)
	}
	if got := b.Stalls(e.Add(1200*time.Millisecond), e.Add(1900*time.Millisecond), 10); len(got) != 0 {
		t.Errorf("Stalls between stalls = %v; want none", got)
	}
	b.Set(Settings{})
	if _, on := b.Current(); on {
		t.Error("Current after Set(zero): on")
	}
}

// TestSetKeepsSchedule: changing a knob other than the stall's keeps the
// stall schedule; changing the stall's starts it again.
func TestSetKeepsSchedule(t *testing.T) {
	s := Settings{StallEvery: time.Second, StallFor: 100 * time.Millisecond}
	b := New(s)
	e := b.cur.Load().period.epoch
	s.Size = 10
	b.Set(s)
	if got := b.cur.Load().period.epoch; !got.Equal(e) {
		t.Errorf("Set(size) moved the schedule's epoch from %v to %v", e, got)
	}
	s.StallFor = 200 * time.Millisecond
	b.Set(s)
	if got := b.cur.Load().period; got.epoch.Equal(e) || got.dur != 200*time.Millisecond || len(b.periods) != 2 || b.periods[0].until.IsZero() {
		t.Errorf("Set(stall_for) = %+v, periods %+v; want a new schedule and the old one closed", got, b.periods)
	}
}
