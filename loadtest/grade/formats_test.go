package grade

import (
	"math"
	"os"
	"strings"
	"testing"
)

// TestReadFixtures reads each fixture, recognised from its content, and
// checks its counts and a figure.
func TestReadFixtures(t *testing.T) {
	tests := []struct {
		file, format    string
		sent, responses int64
		p50             float64 // ms; NaN: not checked
		relative        bool
	}{
		{"vegeta.json", "vegeta", 30, 29, 2.0, false},
		{"k6.json", "k6", 20, 19, 3.0, false},
		{"hey.csv", "hey", 20, 20, 2.2, true},
		{"jmeter.jtl", "jtl", 10, 9, 7, false},
		{"wrk.txt", "wrk", 67893, 67890, 0.812, true},
		{"loadtest-run.json", "loadtest", 40, 40, math.NaN(), false},
	}
	for _, tt := range tests {
		rs, err := readFile("testdata/"+tt.file, "")
		if err != nil {
			t.Fatalf("readFile(%q): %v", tt.file, err)
		}
		r := rs[0]
		if r.Format != tt.format || r.Sent != tt.sent || r.Responses != tt.responses || r.Relative != tt.relative {
			t.Errorf("readFile(%q) = format %s, sent %d, responses %d, relative %v; want %s, %d, %d, %v",
				tt.file, r.Format, r.Sent, r.Responses, r.Relative, tt.format, tt.sent, tt.responses, tt.relative)
		}
		if !math.IsNaN(tt.p50) && math.Abs(r.Lat.P50-tt.p50) > 0.05 {
			t.Errorf("readFile(%q): p50 %.3f ms; want %.3f", tt.file, r.Lat.P50, tt.p50)
		}
		if r.Span <= 0 {
			t.Errorf("readFile(%q): span %v; want > 0", tt.file, r.Span)
		}
		if l := r.Lat; r.Format != "wrk" && !(l.P90 <= l.P95 && l.P95 <= l.P99 && l.P95 > 0) {
			t.Errorf("readFile(%q): p90 %.3f p95 %.3f p99 %.3f; want p95 between p90 and p99", tt.file, l.P90, l.P95, l.P99)
		}
	}
}

// TestReadFixtureDetails checks what each parser reads beyond the counts.
func TestReadFixtureDetails(t *testing.T) {
	read := func(file string) *Report {
		rs, err := readFile("testdata/"+file, "")
		if err != nil {
			t.Fatalf("readFile(%q): %v", file, err)
		}
		return rs[0]
	}
	if v := read("vegeta.json"); v.Status[503] != 1 || v.Status[200] != 28 || v.Start.Format("15:04:05") != "07:20:00" {
		t.Errorf("vegeta: status %v, start %v; want 28 x 200, 1 x 503, start 07:20:00", v.Status, v.Start)
	}
	if k := read("k6.json"); k.Requests[1].At.Milliseconds() != 100 {
		t.Errorf("k6: second request sent at %v; want 100ms (time minus value)", k.Requests[1].At)
	}
	if h := read("hey.csv"); h.Status[500] != 1 || h.Requests[19].At.Milliseconds() != 1900 {
		t.Errorf("hey: status %v, last offset %v; want one 500, 1.9s", h.Status, h.Requests[19].At)
	}
	if w := read("wrk.txt"); w.Lat.P99 != 12.34 || w.Lat.Max != 45.2 || !math.IsNaN(w.Lat.P999) || w.Span.Seconds() != 10.01 {
		t.Errorf("wrk: p99 %v, max %v, p99.9 %v, span %v; want 12.34, 45.2, NaN, 10.01s", w.Lat.P99, w.Lat.Max, w.Lat.P999, w.Span)
	}
	if l := read("loadtest-run.json"); l.Tail == nil || l.Tail(0) != 40 || len(l.Finished) == 0 {
		t.Errorf("loadtest: tail from the histogram and the series expected; got tail %v, %d seconds", l.Tail != nil, len(l.Finished))
	}
}

// TestDetectGarbage: a file no format recognises gets an error naming the
// formats; an unknown -format too.
func TestDetectGarbage(t *testing.T) {
	_, err := readFile("testdata/garbage.txt", "")
	if err == nil || !strings.Contains(err.Error(), FormatNames()) {
		t.Fatalf("readFile(garbage) = %v; want an error naming %s", err, FormatNames())
	}
	if _, err := pick(nil, "gatling"); err == nil || !strings.Contains(err.Error(), "known formats: "+FormatNames()) {
		t.Errorf("pick(gatling) = %v; want an error naming the known formats", err)
	}
	// Each fixture is recognised by exactly its own format.
	for file, want := range map[string]string{"vegeta.json": "vegeta", "k6.json": "k6", "hey.csv": "hey", "jmeter.jtl": "jtl", "wrk.txt": "wrk", "loadtest-run.json": "loadtest"} {
		b, err := os.ReadFile("testdata/" + file)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range formats {
			if f.is(b) {
				got = append(got, f.name)
			}
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("formats recognising %s: %v; want [%s]", file, got, want)
		}
	}
}

// TestParserErrors: malformed lines name the line.
func TestParserErrors(t *testing.T) {
	tests := []struct {
		format, content, want string
	}{
		{"vegeta", "{\"timestamp\":\"x\",\"latency\":1,\"code\":200}\n", "line 1"},
		{"hey", heyHeader + "\n0.1,0,0,0,0,0,abc,0.1\n", "line 2"},
		{"jtl", "timeStamp,elapsed,responseCode\nabc,1,200\n", "sample 1"},
		{"wrk", "Thread Stats\n 10 requests in 1.00s\n", "--latency"},
		{"k6", "{\"type\":\"Point\",\"metric\":\"http_req_duration\",\"data\":{\"value\":1,\"tags\":{\"status\":\"x\"}}}\n", "status"},
	}
	for _, tt := range tests {
		f, _ := pick(nil, tt.format)
		if _, err := f.read("in", []byte(tt.content)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s read(%q) = %v; want an error containing %q", tt.format, tt.content, err, tt.want)
		}
	}
}
