package loadtest

import (
	"strings"
	"testing"
	"time"
)

func TestWritesVersion2(t *testing.T) {
	r := fakeResult(2, map[time.Duration]int64{time.Millisecond: 10}, 0)
	r.Settings.Think = 100 * time.Millisecond
	b, err := r.MarshalIndent()
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	if !strings.Contains(got, `"schema": 2`) || !strings.Contains(got, `"think_ms": 100`) || strings.Contains(got, `"think": `) || !strings.Contains(got, `"p95_ms": 1`) {
		t.Errorf("MarshalIndent = %.600s...; want schema 2, think_ms 100, no think, p95_ms", got)
	}
	back, err := DecodeResult("r.json", b)
	if err != nil || back.Settings.Think != 100*time.Millisecond {
		t.Errorf("DecodeResult(written) = think %v, %v; want 100ms", back.Settings.Think, err)
	}
	if _, err := DecodeResult("new.json", []byte(`{"schema": 3, "kind": "run"}`)); err == nil || !strings.Contains(err.Error(), "schema version 3") {
		t.Errorf("DecodeResult(schema 3) error = %v; want one naming the version", err)
	}
}
