package grade

import (
	"bbslab/truth"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bbslab/internal/cli"
)

// A window describes a truth for the tests: a window from start to end
// (zero: none opened; end zero: open, read 3 s after its start) at 500 requests a second, with a
// stall when stall is set, and a per-request log of logLines lines (-1:
// no log) of which the last arrives at logTo, dropped lines past its cap.
type window struct {
	start, end   time.Time
	stall        bool
	logLines     int
	logTo        time.Time
	dropped, cap int
}

// report builds the truth's JSON and, when it keeps one, its log.
func (w window) report(t *testing.T) (rep, log []byte) {
	t.Helper()
	r := truth.Report{Version: truth.Version, Status: map[string]int64{}, Seconds: []truth.Second{}, Stalls: []truth.Span{},
		ServerMS: truth.Summary{P50: 0.9, P90: 1.5, P99: 4, Max: 9}, ServiceMS: truth.Summary{P50: 0.8}}
	if w.start.IsZero() {
		r.Note = truth.ErrNoWindow.Error()
	} else {
		r.Window = truth.Window{Start: w.start.Format(time.RFC3339Nano), Open: w.end.IsZero()}
		to := w.end
		if to.IsZero() {
			to = w.start.Add(3 * time.Second) // read 3 s after it opened
		} else {
			r.Window.End = w.end.Format(time.RFC3339Nano)
		}
		for s := w.start.Truncate(time.Second); s.Before(to); s = s.Add(time.Second) {
			r.Seconds = append(r.Seconds, truth.Second{T: s, Requests: 500})
			r.Requests += 500
		}
		if w.stall {
			r.Stalls = []truth.Span{{Start: w.start.Add(5 * time.Second), End: w.start.Add(6 * time.Second)}}
		}
	}
	var lb bytes.Buffer
	if w.logLines >= 0 {
		r.Log, r.LogLines, r.LogDropped, r.LogCap = true, int64(w.logLines), int64(w.dropped), w.cap
		step := w.logTo.Sub(w.start) / time.Duration(max(1, w.logLines))
		for i := 1; i <= w.logLines; i++ {
			a := w.start.Add(time.Duration(i) * step)
			fmt.Fprintf(&lb, `{"arrival":%q,"end":%q}`+"\n", a.Format(time.RFC3339Nano), a.Add(time.Millisecond).Format(time.RFC3339Nano))
		}
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b, lb.Bytes()
}

// files writes the truth and its log to dir.
func (w window) files(t *testing.T) (rep, log string) {
	b, l := w.report(t)
	dir := t.TempDir()
	rep, log = filepath.Join(dir, "truth.json"), filepath.Join(dir, "truth.log")
	if err := os.WriteFile(rep, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(log, l, 0o644); err != nil {
		t.Fatal(err)
	}
	return rep, log
}

// serve answers the truth on TruthPath and its log on TruthLogPath (409,
// as the board does, when the window keeps none or logStatus says so).
func (w window) serve(t *testing.T, logStatus int) *httptest.Server {
	b, l := w.report(t)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == TruthPath:
			rw.Write(b)
		case r.URL.Path == TruthLogPath && (w.logLines < 0 || logStatus == http.StatusConflict):
			rw.WriteHeader(http.StatusConflict)
			rw.Write([]byte(`{"status":409,"error":"log: this window keeps no per-request log; start it with POST /admin/truth/start?log=1 (or truth_log = true)"}`))
		case r.URL.Path == TruthLogPath:
			rw.Write(l)
		default:
			http.NotFound(rw, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The fixtures' times: vegeta.json sends from 07:20:00.000 to 07:20:02.900;
// loadtest-run.json measures 07:21:56.478 to 07:21:58.478.
var (
	at      = func(s string) time.Time { return base.Add(time.Duration(float64(time.Second) * mustFloat(s))) }
	vegSpan = "2026-12-02T07:20:00.000Z to 2026-12-02T07:20:02.900Z (2.9 s)"
	noLog   = -1
)

func mustFloat(s string) float64 {
	var f float64
	if _, err := fmt.Sscan(s, &f); err != nil {
		panic(err)
	}
	return f
}

// TestCannotGrade grades files against truths that do not cover them:
// each exits 2 (not 3: the tool did not lie) with a message naming the
// window found, the tool's span and the command that opens a window, and
// grades nothing of that file.
func TestCannotGrade(t *testing.T) {
	tests := []struct {
		name   string
		w      window
		server bool // served over HTTP (-server); else from files (-truth, -truth-log)
		file   string
		want   []string
	}{
		{"none opened", window{logLines: noLog}, true, "testdata/vegeta.json",
			[]string{"no window: none was opened", "truth's window: none opened", "tool's span:    " + vegSpan, "open a window before the tool runs: curl -X POST " + "http", "/admin/truth/start\n", "?log=1 on the start"}},
		{"opened after", window{start: at("1"), end: at("10"), logLines: noLog}, false, "testdata/vegeta.json",
			[]string{"opened 1.000 s after the tool's span began", "2026-12-02T07:20:01.000Z to 2026-12-02T07:20:10.000Z (9.0 s)", vegSpan, "curl -X POST ADMIN/admin/truth/start", "ADMIN is the board's admin address"}},
		{"closed before", window{start: at("-1"), end: at("2"), logLines: noLog}, true, "testdata/vegeta.json",
			[]string{"closed 0.900 s before the tool's span ended", "07:19:59.000Z to 2026-12-02T07:20:02.000Z (3.0 s)", vegSpan}},
		{"open, read before the end", window{start: at("-1"), logLines: noLog}, false, "testdata/vegeta.json",
			[]string{"it was read 0.900 s before the tool's span ended", "open (read at 2026-12-02T07:20:02.000Z)"}},
		{"another run's window", window{start: at("0"), end: at("10"), logLines: noLog}, true, "testdata/loadtest-run.json",
			[]string{"does not overlap the tool's span: it is a window of another run", "2026-12-02T07:21:56.477Z to 2026-12-02T07:21:58.477Z"}},
		{"window shorter than wrk's run", window{start: at("0"), end: at("5"), logLines: noLog}, true, "testdata/wrk.txt",
			[]string{"the truth's window (5.0 s) is shorter than the tool's span (10.0 s)", "10.0 s long (the wrk file has no absolute times)"}},
		{"hey and a stall without a log", window{start: at("0"), end: at("10"), stall: true, logLines: noLog}, true, "testdata/hey.csv",
			[]string{"needs the truth's per-request log, and the window keeps none", "curl -X POST '", "/admin/truth/start?log=1'"}},
		{"hey and a stall, the log not given", window{start: at("0"), end: at("10"), stall: true, logLines: 10, logTo: at("9")}, false, "testdata/hey.csv",
			[]string{"the window keeps one, but it was not given (-truth-log FILE)"}},
		{"log cut at its cap", window{start: at("0"), end: at("10"), logLines: 100, logTo: at("1"), dropped: 4900, cap: 100}, true, "testdata/vegeta.json",
			[]string{"the truth's log stops at 2026-12-02T07:20:01.000Z (its cap of 100 lines reached, 4900 requests not logged)", "at most 100 lines a window"}},
	}
	for _, tt := range tests {
		o := Options{}
		if tt.server {
			o.Server = tt.w.serve(t, 0).URL
		} else {
			o.TruthFile, _ = tt.w.files(t)
		}
		var out bytes.Buffer
		err := Run(context.Background(), o, []string{tt.file}, &out)
		if code := cli.ExitCode(err); code != cli.ExitUsage {
			t.Errorf("%s: Run = %v (exit %d); want exit 2\n%s", tt.name, err, code, out.String())
			continue
		}
		msg := err.Error()
		for _, w := range append(tt.want, "cannot grade "+tt.file, "docs/grading.md") {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: the error lacks %q:\n%s", tt.name, w, msg)
			}
		}
		if tt.server && !strings.Contains(msg, o.Server+"/admin/truth/stop") {
			t.Errorf("%s: the error does not name the server's stop:\n%s", tt.name, msg)
		}
		if strings.Contains(out.String(), "FAIL") || !strings.Contains(out.String(), "not graded") {
			t.Errorf("%s: the output grades the file or does not say it is not graded:\n%s", tt.name, out.String())
		}
	}
}

// TestCannotGradeLog refuses a truth log that is not its window's and a
// log the server withholds after its truth said the window keeps one.
func TestCannotGradeLog(t *testing.T) {
	w := window{start: at("0"), end: at("10"), logLines: noLog}
	rep, _ := w.files(t)
	_, other := window{start: at("-60"), end: at("-50"), logLines: 10, logTo: at("-51")}.files(t)
	logged := window{start: at("0"), end: at("10"), logLines: 10, logTo: at("9")}
	logRep, logFile := logged.files(t)
	_, early := window{start: at("-60"), end: at("10"), logLines: 10, logTo: at("9")}.files(t)
	_, short := window{start: at("0"), end: at("10"), logLines: 9, logTo: at("9")}.files(t)
	tests := []struct {
		name string
		o    Options
		want []string
	}{
		{"a log where the window keeps none", Options{TruthFile: rep, TruthLog: other}, []string{"keeps no per-request log, so this log is another window's", "the log:        10 lines"}},
		{"another window's log", Options{TruthFile: logRep, TruthLog: early}, []string{"before the window opened: it is another window's"}},
		{"a log cut short", Options{TruthFile: logRep, TruthLog: short}, []string{"it has 9 lines where the truth says 10"}},
		{"withheld (409)", Options{Server: logged.serve(t, http.StatusConflict).URL}, []string{"replaced between the two reads", "409", "?log=1"}},
		{"-truth-log with -server", Options{Server: "http://127.0.0.1:1", TruthLog: logFile}, []string{"-truth-log goes with -truth"}},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		err := Run(context.Background(), tt.o, []string{"testdata/vegeta.json"}, &out)
		if code := cli.ExitCode(err); code != cli.ExitUsage {
			t.Errorf("%s: Run = %v (exit %d); want exit 2\n%s", tt.name, err, code, out.String())
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: the error lacks %q:\n%s", tt.name, w, err)
			}
		}
	}
	// The window's own log grades.
	var out bytes.Buffer
	if err := Run(context.Background(), Options{TruthFile: logRep, TruthLog: logFile}, []string{"testdata/vegeta.json"}, &out); cli.ExitCode(err) == cli.ExitUsage {
		t.Errorf("Run with the window's own log = %v; want it graded\n%s", err, out.String())
	}
}

// TestCoveredWithinSlack grades a file whose span reaches outside the
// window by less than spanSlack (the clocks' tolerance), and one of
// several files against a window that covers only it: the one covered is
// graded, the other named, and the exit is 2.
func TestCoveredWithinSlack(t *testing.T) {
	rep, _ := window{start: at("0.05"), end: at("2.85"), logLines: noLog}.files(t)
	var out bytes.Buffer
	err := Run(context.Background(), Options{TruthFile: rep}, []string{"testdata/vegeta.json"}, &out)
	if code := cli.ExitCode(err); code == cli.ExitUsage || !strings.Contains(out.String(), "counts agree") {
		t.Errorf("a window 50 ms short at each end: Run = %v (exit %d); want it graded\n%s", err, code, out.String())
	}
	out.Reset()
	err = Run(context.Background(), Options{TruthFile: rep}, []string{"testdata/vegeta.json", "testdata/loadtest-run.json"}, &out)
	if code := cli.ExitCode(err); code != cli.ExitUsage || !strings.Contains(out.String(), "counts agree") ||
		strings.Contains(err.Error(), "vegeta.json") || !strings.Contains(err.Error(), "cannot grade testdata/loadtest-run.json") {
		t.Errorf("one file covered, one not: Run = %v (exit %d); want exit 2 naming only the lab's file, vegeta's graded\n%s", err, code, out.String())
	}
	if spanSlack(2*time.Second) != 100*time.Millisecond || spanSlack(time.Minute) != 600*time.Millisecond {
		t.Errorf("spanSlack(2 s, 1 min) = %v, %v; want 100 ms (the floor) and 600 ms (1 %%)", spanSlack(2*time.Second), spanSlack(time.Minute))
	}
}
