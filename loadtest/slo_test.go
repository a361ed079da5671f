package loadtest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestParseSLO(t *testing.T) {
	objs, err := ParseSLO("p99.9<5ms, p99.999<200ms,errors<0.1%,mean<2ms,throughput>100")
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 5 {
		t.Fatalf("ParseSLO: %d objectives; want 5", len(objs))
	}
	if o := objs[0]; !within(o.Quantile, 0.999, 1e-9) || o.Limit != float64(5*time.Millisecond) || !o.Less {
		t.Errorf("p99.9<5ms parsed as %+v", o)
	}
	if o := objs[1]; o.MinSamples() != 100000 {
		t.Errorf("p99.999 MinSamples = %d; want 100000", o.MinSamples())
	}
	if o := objs[2]; o.Metric != "errors" || o.Limit != 0.1 {
		t.Errorf("errors<0.1%% parsed as %+v", o)
	}
	if o := objs[4]; o.Less || o.Limit != 100 {
		t.Errorf("throughput>100 parsed as %+v", o)
	}
	for _, bad := range []string{"", "p99", "p101<5ms", "p99<fast", "errors<5", "latency<5ms", "p99.9<-1ms"} {
		if _, err := ParseSLO(bad); err == nil {
			t.Errorf("ParseSLO(%q) succeeded; want an error", bad)
		}
	}
}

func TestEvaluateSLO(t *testing.T) {
	// 1,000 samples: 990 at 1 ms, 10 at 100 ms; 1 error in 1,001.
	r := fakeResult(10, map[time.Duration]int64{time.Millisecond: 990, 100 * time.Millisecond: 10}, 1)
	objs, _ := ParseSLO("p99<2ms,p99.9<5ms,errors<0.1%,errors<1%,p99.999<1s")
	vs := EvaluateSLO(r, objs)
	want := []bool{true, false, true, true, true}
	for i, v := range vs {
		if v.Pass != want[i] {
			t.Errorf("%s: pass %v (value %.4g); want %v", v.Objective.Text, v.Pass, v.Value, want[i])
		}
	}
	if vs[4].Warning == "" || !strings.Contains(vs[4].Warning, "100000") {
		t.Errorf("p99.999 with 1,000 samples: warning %q; want one saying it needs 100000", vs[4].Warning)
	}
	if vs[0].Warning != "" {
		t.Errorf("p99 with 1,000 samples warned: %q", vs[0].Warning)
	}
}

// An experiment writes ObjectiveResults in its JSON and reads them back:
// the objective as written, the field names of the form it had before.
func TestObjectiveResultJSON(t *testing.T) {
	objs, err := ParseSLO("p99.9<5ms")
	if err != nil {
		t.Fatal(err)
	}
	v := ObjectiveResult{Objective: objs[0], Value: 6.25, Warning: "few samples"}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"objective":"p99.9\u003c5ms","value":6.25,"pass":false,"warning":"few samples"}`
	if string(b) != want {
		t.Errorf("json.Marshal(%+v) = %s; want %s", v, b, want)
	}
	var back ObjectiveResult
	if err := json.Unmarshal(b, &back); err != nil || back != v {
		t.Errorf("json.Unmarshal(%s) = %+v, %v; want %+v", b, back, err, v)
	}
	if err := json.Unmarshal([]byte(`{"objective":"p99.9?5ms"}`), &back); err == nil {
		t.Errorf("json.Unmarshal of a malformed objective: no error")
	}
}
