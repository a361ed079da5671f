package grade

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bbslab/internal/cli"
)

// TestGenericFixtures reads the two generic fixtures, CSV with absolute
// times and JSON lines with offsets and a "# start=" line: the same ten
// requests, one 503 and one without a response.
func TestGenericFixtures(t *testing.T) {
	for _, file := range []string{"generic.csv", "generic.jsonl"} {
		rs, err := readFile("testdata/"+file, "")
		if err != nil {
			t.Fatalf("readFile(%q): %v", file, err)
		}
		r := rs[0]
		if r.Format != "generic" || r.Sent != 10 || r.Responses != 9 || r.Status[200] != 8 || r.Status[503] != 1 || r.Relative {
			t.Errorf("%s: format %s, sent %d, responses %d, status %v, relative %v; want generic, 10, 9, 8 x 200 and 1 x 503, absolute",
				file, r.Format, r.Sent, r.Responses, r.Status, r.Relative)
		}
		if want := time.Date(2026, 12, 2, 7, 20, 0, 0, time.UTC); !r.Start.Equal(want) || r.Span != 900*time.Millisecond {
			t.Errorf("%s: start %v, span %v; want %v, 900ms", file, r.Start, r.Span, want)
		}
		// The 200s' latencies: 2.0 ... 2.9 ms without 2.4 and 2.7.
		if r.Lat.P50 != 2.3 || r.Lat.Max != 2.9 || r.Resolution != 0.1 {
			t.Errorf("%s: p50 %v, max %v, resolution %v ms; want 2.3, 2.9, 0.1", file, r.Lat.P50, r.Lat.Max, r.Resolution)
		}
		notes := strings.Join(r.Notes, "\n")
		for _, want := range []string{`no response: 1 x "dial tcp 127.0.0.1:8080: connect: connection refused"`, "bytes received: 16504"} {
			if !strings.Contains(notes, want) {
				t.Errorf("%s: notes lack %q:\n%s", file, want, notes)
			}
		}
	}
}

// TestFormatsStillRecognised: with generic added, every fixture is
// recognised from its content by exactly the format it had, and the
// generic fixtures by generic alone.
func TestFormatsStillRecognised(t *testing.T) {
	want := map[string]string{
		"vegeta.json": "vegeta", "k6.json": "k6", "hey.csv": "hey", "jmeter.jtl": "jtl", "wrk.txt": "wrk",
		"loadtest-run.json": "loadtest", "generic.csv": "generic", "generic.jsonl": "generic",
	}
	files, err := filepath.Glob("testdata/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		var got []string
		for _, fm := range formats {
			if fm.is(b) {
				got = append(got, fm.name)
			}
		}
		switch w, ok := want[name]; {
		case !ok && isGeneric(b):
			t.Errorf("%s (not a tool's file) is recognised as generic", name)
		case ok && (len(got) != 1 || got[0] != w):
			t.Errorf("formats recognising %s: %v; want [%s]", name, got, w)
		}
	}
	if formats[len(formats)-1].name != "generic" {
		t.Errorf("generic is tried at %s's place; want it last, after the tools' own formats", formats[len(formats)-1].name)
	}
}

// stallRows writes the requests of a tool at 500/s for 10 s from the
// fixture truth's start (testdata/truth.json: 1 s stall at 5 s), each
// row by row(sent from the start, latency, status). A request sent in
// the stall waits for its end; the stall's last ten get a 503 (the truth
// counts ten). With omit, none is sent in the stall (a closed loop).
func stallRows(row func(at, lat time.Duration, status int) string, omit bool) string {
	var b strings.Builder
	for at := time.Duration(0); at < 10*time.Second; at += 2 * time.Millisecond {
		lat, status := 2500*time.Microsecond, 200
		if at >= 5*time.Second && at < 6*time.Second {
			if omit {
				continue
			}
			lat += 6*time.Second - at
			if at >= 6*time.Second-20*time.Millisecond {
				status = 503
			}
		}
		b.WriteString(row(at, lat, status) + "\n")
	}
	return b.String()
}

// TestGradeGenericStall grades generated generic files against the
// fixture truth (10 s at 500/s, a 1 s stall): CSV with absolute
// microseconds and JSON lines with offsets, each at a constant rate
// (every check passes, the stall's 500 requests sent, its tail holds
// them) and as a closed loop (coordinated omission: exit 3).
func TestGradeGenericStall(t *testing.T) {
	start := base.UnixMicro()
	csvRow := func(at, lat time.Duration, status int) string {
		return fmt.Sprintf("%d,%d,%d", start+at.Microseconds(), lat.Microseconds(), status)
	}
	jsonRow := func(at, lat time.Duration, status int) string {
		return fmt.Sprintf(`{"offset": %q, "latency_ms": %.3f, "status": %d}`, at.String(), float64(lat)/float64(time.Millisecond), status)
	}
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	csvFile := write("tool.csv", "start_unix_us,latency_us,status\n"+stallRows(csvRow, false))
	jsonFile := write("tool.jsonl", "# start="+base.Format(time.RFC3339)+"\n"+stallRows(jsonRow, false))
	closedFile := write("closed.csv", "start_unix_us,latency_us,status\n"+stallRows(csvRow, true))

	for _, f := range []string{csvFile, jsonFile} {
		rs, err := readFile(f, "")
		if err != nil {
			t.Fatalf("readFile(%s): %v", f, err)
		}
		g := gradeReport(rs[0], mustTruth(t))
		// 4990 at 2.5 ms and the stall's 490 200s waiting 1000 ... 22 ms:
		// p99 is the 4950th, 904.5 ms; the max 1002.5 ms.
		if r := rs[0]; r.Sent != 5000 || r.Responses != 5000 || r.Lat.P50 != 2.5 || r.Lat.P99 != 904.5 || r.Lat.Max != 1002.5 {
			t.Errorf("%s: sent %d, responses %d, p50 %v, p99 %v, max %v; want 5000, 5000, 2.5, 904.5, 1002.5",
				filepath.Base(f), r.Sent, r.Responses, r.Lat.P50, r.Lat.P99, r.Lat.Max)
		}
		if g.SentInStalls != 500 || g.Served != 5000 {
			t.Errorf("%s: sent %d in the stall, served %d in its span; want 500, 5000", filepath.Base(f), g.SentInStalls, g.Served)
		}
	}
	var out bytes.Buffer
	err := Run(context.Background(), Options{TruthFile: "testdata/truth.json"}, []string{csvFile, jsonFile}, &out)
	if code := cli.ExitCode(err); code != 0 {
		t.Fatalf("Run(constant rate) = %v (exit %d); want exit 0\n%s", err, code, out.String())
	}
	for _, want := range []string{"(generic)", "PASS        counts agree", "PASS        no percentile below the server's",
		"PASS        stalls visible: sent 500 of the 500 requests"} {
		if n := strings.Count(out.String(), want); n != 2 {
			t.Errorf("output has %q %d times; want 2 (once a file):\n%s", want, n, out.String())
		}
	}
	out.Reset()
	err = Run(context.Background(), Options{TruthFile: "testdata/truth.json"}, []string{closedFile}, &out)
	if code := cli.ExitCode(err); code != cli.ExitSLO || !strings.Contains(out.String(), "FAIL        stalls visible: coordinated omission: sent 0 of the 500") {
		t.Errorf("Run(closed loop) = %v (exit %d); want exit 3 and coordinated omission, 0 of 500 sent:\n%s", err, code, out.String())
	}
}

func mustTruth(t *testing.T) *Truth {
	t.Helper()
	tr, err := decodeFile("testdata/truth.json", "truth", DecodeTruth)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestGenericOffsetsWithoutStart: offsets without "# start=" are placed
// like hey's, by the truth's seconds (and its log, the truth having a
// stall).
func TestGenericOffsetsWithoutStart(t *testing.T) {
	p := filepath.Join(t.TempDir(), "offsets.csv")
	rows := stallRows(func(at, lat time.Duration, status int) string {
		return fmt.Sprintf("%.6f,%s,%d", at.Seconds(), lat, status)
	}, false)
	os.WriteFile(p, []byte("offset_s,latency,status\n"+rows), 0o644)
	truthFile, logFile := stallTruthWithLog(t) // offsets against a truth with a stall need its log
	var out bytes.Buffer
	err := Run(context.Background(), Options{TruthFile: truthFile, TruthLog: logFile}, []string{p}, &out)
	if code := cli.ExitCode(err); code != 0 || !strings.Contains(out.String(), "placed: matched to the truth's seconds from 07:20:00") {
		t.Errorf("Run(offsets, no start) = %v (exit %d); want exit 0, placed at 07:20:00:\n%s", err, code, out.String())
	}
}

// TestGenericBadInputs: every bad input is an error naming its line and
// what was expected; nothing is skipped.
func TestGenericBadInputs(t *testing.T) {
	const h = "start_unix_ms,latency_ms,status\n"
	const ok = "1796196000000,2.5,200\n"
	tests := []struct {
		name, content string
		want          []string
	}{
		{"missing latency column", "start_unix_ms,status\n" + "1796196000000,200\n", []string{"line 1 (the header)", "no latency", "latency_s|ms|us|ns"}},
		{"missing status column", "start_unix_ms,latency_ms\n1796196000000,2\n", []string{"line 1 (the header)", "no status column"}},
		{"missing send time", "latency_ms,status,bytes\n2,200,10\n", []string{"line 1 (the header)", "no send time"}},
		{"bad unit", "start_unix_ms,latency_min,status\n", []string{`column "latency_min": unknown unit "min"`, "latency_ms"}},
		{"start with a unit", "start_ms,latency_ms,status\n", []string{`column "start_ms"`, "start_unix_ms", "offset_ms"}},
		{"unknown column", "start_unix_ms,latency_ms,status,url\n", []string{`unknown column "url"`, "x_*"}},
		{"column twice", "start_unix_ms,latency_ms,status,status\n", []string{`column "status" given twice`}},
		{"mixed absolute and offset", "start_unix_ms,offset_ms,latency_ms,status\n", []string{"2 send-time columns (start_unix_ms, offset_ms)", "not both"}},
		{"two latencies", "start,latency_ms,latency_us,status\n", []string{"2 latency columns"}},
		{"bad time", "start,latency_ms,status\n2026-12-03T09:00:00Z,1,200\n2026-12-03 09:00:01,1,200\n", []string{"line 3", `start "2026-12-03 09:00:01"`, "RFC 3339"}},
		{"time without a zone", "start,latency_ms,status\n2026-12-03T09:00:00,1,200\n", []string{"line 2", "with a zone"}},
		{"epoch in the wrong unit", "start_unix_s,latency_ms,status\n1796196000000,1,200\n", []string{"line 2", "not a time between 2000 and 2099", "start_unix_ms?"}},
		{"seconds as milliseconds", h + "1796196000.5,1,200\n", []string{"line 2", "is 1970-01-21", "in seconds it is 2026-12-02T07:20:00.5Z: is the column start_unix_s?"}},
		{"epoch not a number", h + ok + "17961960000x0,1,200\n", []string{"line 3", "not a decimal number", "Unix epoch milliseconds"}},
		{"negative latency", h + ok + ok + "1796196000000,-1,200\n", []string{"line 4", `latency_ms "-1": negative`}},
		{"NaN latency", h + "1796196000000,NaN,200\n", []string{"line 2", "not a decimal number"}},
		{"bad Go duration", "start_unix_ms,latency,status\n1796196000000,12 ms,200\n", []string{"line 2", "Go duration"}},
		{"negative offset", "# start=2026-12-03T09:00:00Z\noffset,latency_ms,status\n-1s,1,200\n", []string{"line 3", "negative"}},
		{"empty latency of a response", h + "1796196000000,,200\n", []string{"line 2", "latency_ms empty", "status 200"}},
		{"empty send time", h + ",2,200\n", []string{"line 2", "every request needs its send time"}},
		{"status 0 without error", h + "1796196000000,2,0\n", []string{"line 2", "needs an error"}},
		{"status out of range", h + "1796196000000,2,2000\n", []string{"line 2", `status "2000"`, "100-599"}},
		{"status not a number", h + "1796196000000,2,OK\n", []string{"line 2", `status "OK"`}},
		{"negative bytes", "start_unix_ms,latency_ms,status,bytes\n1796196000000,2,200,-5\n", []string{"line 2", `bytes "-5"`}},
		{"short row", h + ok + "1796196000000,2\n", []string{"line 3", "2 fields; the header has 3"}},
		{"bad quote", h + ok + "1796196000000,\"2,200\n", []string{"line 3"}},
		{"header only", h, []string{"no requests after the header"}},
		{"start line with absolute times", "# start=2026-12-03T09:00:00Z\n" + h + ok, []string{"drop the line or give offsets"}},
		{"bad start line", "# start=yesterday\noffset_ms,latency_ms,status\n0,1,200\n", []string{"line 1", `start "yesterday"`, "RFC 3339"}},
		{"start line twice", "# start=2026-12-03T09:00:00Z\n#start=2026-12-03T09:00:01Z\noffset_ms,latency_ms,status\n", []string{"line 2", "second"}},
		{"start line after the data", "offset_ms,latency_ms,status\n0,1,200\n# start=2026-12-03T09:00:00Z\n", []string{"line 3", "after the data"}},
		{"line numbers after comments", "# a comment\n\n# start=2026-12-03T09:00:00Z\noffset_ms,latency_ms,status\n0,1,200\n5,-2,200\n", []string{"line 6", "negative"}},
		{"JSON mixed absolute and offset", `{"start_unix_ms": 1796196000000, "latency_ms": 2, "status": 200}` + "\n" + `{"start_unix_ms": 1796196000001, "latency_ms": 2, "status": 200}` + "\n" + `{"offset_ms": 5, "latency_ms": 2, "status": 200}` + "\n",
			[]string{"line 3", "offset_ms, but the first line gave start_unix_ms", "one send-time"}},
		{"JSON another latency unit", `{"start_unix_ms": 1796196000000, "latency_ms": 2, "status": 200}` + "\n" + `{"start_unix_ms": 1796196000000, "latency_us": 2, "status": 200}` + "\n", []string{"line 2", "latency_us, but the first line gave"}},
		{"JSON missing latency key", `{"start_unix_ms": 1796196000000, "status": 200}` + "\n", []string{"line 1", "no latency"}},
		{"JSON later line without latency", `{"start_unix_ms": 1796196000000, "latency_ms": 2, "status": 200}` + "\n" + `{"start_unix_ms": 1796196000000, "status": 200}` + "\n", []string{"line 2", "latency_ms empty"}},
		{"JSON not an object", `{"start_unix_ms": 1796196000000, "latency_ms": 2, "status": 200}` + "\n[1, 2]\n", []string{"line 2", "want one JSON object a line"}},
		{"JSON two objects on a line", `{"start_unix_ms": 1796196000000, "latency_ms": 2, "status": 200} {"a": 1}` + "\n", []string{"line 1", "more after the object"}},
		{"JSON bool", `{"start_unix_ms": 1796196000000, "latency_ms": 2, "status": true}` + "\n", []string{"line 1", "status: true", "a number or a string"}},
		{"JSON unknown key", `{"start_unix_ms": 1796196000000, "latency_ms": 2, "status": 200}` + "\n" + `{"start_unix_ms": 1796196000000, "latency_ms": 2, "status": 200, "url": "/"}` + "\n", []string{"line 2", `unknown column "url"`}},
	}
	for _, tt := range tests {
		_, err := readGeneric("in", []byte(tt.content))
		if testing.Verbose() {
			t.Logf("%s: %v", tt.name, err)
		}
		if err == nil {
			t.Errorf("%s: readGeneric(%q) = nil error; want one containing %q", tt.name, tt.content, tt.want)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: readGeneric(%q) = %q; want it to contain %q", tt.name, tt.content, err, w)
			}
		}
	}
}

// TestGenericForced: -format generic reads a file whatever its content
// and says what it lacks; an existing format's file is not generic.
func TestGenericForced(t *testing.T) {
	if _, err := readFile("testdata/vegeta.json", "generic"); err == nil || !strings.Contains(err.Error(), "(generic): line 1: unknown column") {
		t.Errorf("readFile(vegeta.json, generic) = %v; want a generic error naming line 1's unknown column", err)
	}
	if _, err := readFile("testdata/generic.csv", "generic"); err != nil {
		t.Errorf("readFile(generic.csv, generic) = %v", err)
	}
}

// TestParseAmount: numbers are read exactly, in their unit, with the
// resolution their digits show.
func TestParseAmount(t *testing.T) {
	tests := []struct {
		s    string
		unit time.Duration
		ns   int64
		res  float64
	}{
		{"1796196000.123456789", time.Second, 1796196000123456789, 1},
		{"1796196000123456789", time.Nanosecond, 1796196000123456789, 1},
		{"1796196000123.4567", time.Millisecond, 1796196000123456700, 100},
		{"12.3", time.Millisecond, 12300000, 1e5},
		{"12", time.Millisecond, 12000000, 1e6},
		{"1.5e3", time.Millisecond, 1500000000, 1e8},
		{"0.0000004", time.Millisecond, 0, 0.1},
		{".5", time.Microsecond, 500, 100},
	}
	for _, tt := range tests {
		ns, res, err := parseAmount(tt.s, tt.unit)
		if err != nil || ns != tt.ns || res < tt.res*0.999 || res > tt.res*1.001 {
			t.Errorf("parseAmount(%q, %v) = %d, %v, %v; want %d, %v", tt.s, tt.unit, ns, res, err, tt.ns, tt.res)
		}
	}
	for _, s := range []string{"", "-1", "1e9999", "0x10", "1/2", "Inf", "1.2.3", "1e99"} {
		if _, _, err := parseAmount(s, time.Second); err == nil {
			t.Errorf("parseAmount(%q) = nil error; want one", s)
		}
	}
	for s, want := range map[string]float64{"12.5ms": 1e5, "2s": 1e9, "1m30.25s": 1e7, "904µs": 1e3} {
		if got := durationRes(s); got < want*0.999 || got > want*1.001 {
			t.Errorf("durationRes(%q) = %v; want %v", s, got, want)
		}
	}
}

// TestGenericCRLFAndBOM: a file saved by a spreadsheet (a UTF-8 BOM,
// CRLF line ends) reads as the same requests.
func TestGenericCRLFAndBOM(t *testing.T) {
	for _, file := range []string{"generic.csv", "generic.jsonl"} {
		b, err := os.ReadFile("testdata/" + file)
		if err != nil {
			t.Fatal(err)
		}
		b = append([]byte("\uFEFF"), bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n"))...)
		if !isGeneric(b) {
			t.Errorf("%s with a BOM and CRLF: not recognised as generic", file)
		}
		rs, err := readGeneric(file, b)
		if err != nil {
			t.Fatalf("%s with a BOM and CRLF: %v", file, err)
		}
		if r := rs[0]; r.Sent != 10 || r.Responses != 9 || r.Lat.Max != 2.9 || r.Relative {
			t.Errorf("%s with a BOM and CRLF: sent %d, responses %d, max %v, relative %v; want 10, 9, 2.9, false", file, r.Sent, r.Responses, r.Lat.Max, r.Relative)
		}
	}
}
