package room

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"bbslab/loadtest/live"
	"bbslab/loadtest/tune"
)

// threeLaptops posts three laptops' results to the room at url: ana the
// article, ben the article on a disturbed machine, chie the article on
// another machine with g1-flat not reproduced (after N+1, so that the
// article's machine is chie's latest).
func threeLaptops(t *testing.T, url string) {
	t.Helper()
	send(t, url, "ana", writeFile(t, "experiment.json", report(t, "article")))
	send(t, url, "ben", writeFile(t, "experiment.json", report(t, "article-disturbed")))
	send(t, url, "chie", writeFile(t, "experiment.json", report(t, "nplus1")))
	send(t, url, "chie", writeFile(t, "experiment.json", varied(t)))
}

// TestRoomThreeLaptops: three laptops post; the room shows their
// machines, the claims claim by laptop with the one they disagree on
// marked and its readings beside each verdict, and the curves overlaid;
// a restart on the same directory shows the same.
func TestRoomThreeLaptops(t *testing.T) {
	// Its own room and directory, beside TestRoomBrowser.
	t.Parallel()
	dir := t.TempDir()
	_, srv, _ := serve(t, Options{Dir: dir})
	threeLaptops(t, srv.URL)

	v := viewJSON(t, srv.URL)
	var names []string
	for _, l := range v.Laptops {
		names = append(names, l.Name)
	}
	if !slices.Equal(names, []string{"ana", "ben", "chie"}) || v.Uploads != 4 {
		t.Fatalf("laptops %q, %d uploads; want ana, ben, chie and 4", names, v.Uploads)
	}
	if h := v.Laptops[2].Host; h == nil || h.CPUModel != "Apple M2" || h.LogicalCPUs != 8 || h.OS != "darwin" {
		t.Errorf("chie's machine %+v; want the Apple M2 with 8 CPUs its results name", h)
	}
	if h := v.Laptops[0].Host; h == nil || h.CPUModel != "Intel(R) Xeon(R) Processor" || h.GoVersion == "" {
		t.Errorf("ana's machine %+v; want the Xeon its results name", h)
	}
	if v.Laptops[0].Steal == nil || v.Laptops[0].Others == nil {
		t.Errorf("ana: steal %v, others %v; want both read from the results' generator CPUs", v.Laptops[0].Steal, v.Laptops[0].Others)
	}

	if len(v.Claims) != 2 || v.Claims[0].Experiment != "article" || v.Claims[1].Experiment != "nplus1" {
		t.Fatalf("claim tables %+v; want article then nplus1", v.Claims)
	}
	art := v.Claims[0]
	if !slices.Equal(art.Laptops, []string{"ana", "ben", "chie"}) || len(art.Rows) != 8 {
		t.Fatalf("article: laptops %q, %d claims; want ana, ben, chie and 8", art.Laptops, len(art.Rows))
	}
	for _, row := range art.Rows {
		if want := row.ID == "g1-flat"; row.Disagree != want {
			t.Errorf("claim %s: disagree %v; want %v", row.ID, row.Disagree, want)
		}
		for i, c := range row.Cells {
			if c.Outcome == "" || len(c.Readings) == 0 || len(c.Readings) != len(c.Checks) {
				t.Errorf("claim %s, %s: %+v; want a verdict with its readings", row.ID, art.Laptops[i], c)
			}
		}
	}
	flat := art.Rows[0]
	if flat.ID != "g1-flat" || flat.Cells[0].Outcome != live.Reproduced || flat.Cells[2].Outcome != live.NotReproduced {
		t.Errorf("g1-flat: %+v; want reproduced on ana, not reproduced on chie", flat)
	}
	if r := flat.Cells[0].Readings[0]; !strings.Contains(r, "<=") || !strings.Contains(r, "3794") {
		t.Errorf("g1-flat's first reading on ana %q; want the throughput at 20 clients (3794/s) <= the bound", r)
	}
	if v.Disagree != 1 || len(v.Claims[1].Laptops) != 1 || v.Claims[1].Rows[0].Disagree {
		t.Errorf("%d disagreements, nplus1 %+v; want 1, and one laptop's nplus1 agreeing with itself", v.Disagree, v.Claims[1])
	}

	i := slices.IndexFunc(v.Curves, func(c Curves) bool { return c.Source == "experiment article" && strings.HasPrefix(c.Run, "graph 1") })
	if i < 0 {
		t.Fatalf("curves %+v; want the article's graph 1", v.Curves)
	}
	g1 := v.Curves[i]
	if len(g1.Lines) != 3 || len(g1.Lines[0].Points) < 5 || g1.Lines[0].Points[0].Throughput.N < 2 {
		t.Errorf("graph 1's curves %+v; want three laptops' lines, each point a median over repeats", g1)
	}
	svg := get(t, srv.URL+"/chart/"+g1.ID)
	for _, name := range []string{"<svg", "ana", "ben", "chie"} {
		if !strings.Contains(svg, name) {
			t.Errorf("graph 1's chart has no %q", name)
		}
	}
	page := get(t, srv.URL+"/")
	if n := strings.Count(page, `class="disagree"`); n != 1 || !strings.Contains(page, "Apple M2") || strings.Count(page, `<img src="/chart/`) != len(v.Curves) {
		t.Errorf("page: %d rows marked disagree, Apple M2 %v, %d charts; want 1, true, %d", n, strings.Contains(page, "Apple M2"), strings.Count(page, `<img src="/chart/`), len(v.Curves))
	}

	srv.Close()
	_, again, _ := serve(t, Options{Dir: dir})
	before, _ := json.Marshal(v)
	after, _ := json.Marshal(viewJSON(t, again.URL))
	if !bytes.Equal(before, after) {
		t.Errorf("after a restart on %s the room shows\n%s\nwant\n%s", dir, after, before)
	}
}

// TestRoomRefusesBadInput: each bad upload is a 4xx with a sentence
// saying why, and nothing received before is lost or added to.
func TestRoomRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	_, srv, _ := serve(t, Options{Dir: dir, MaxBytes: 2 << 20, PerMin: 600, Burst: 100})
	art := report(t, "article")
	send(t, srv.URL, "ana", writeFile(t, "experiment.json", art))
	stored := dirFiles(t, dir)
	for _, c := range []struct {
		name, token, laptop, body string
		status                    int
		says                      string
	}{
		{"no token", "", "ben", string(art), 401, "no token"},
		{"wrong token", "guess", "ben", string(art), 401, "wrong token"},
		{"bad name", testToken, "../ana", string(art), 400, "X-Laptop"},
		{"too large", testToken, "ben", `{"kind":"run","pad":"` + strings.Repeat("x", 3<<20) + `"}`, 413, "over the room's cap of 2097152 bytes"},
		{"not JSON", testToken, "ben", "hello, room", 400, "not JSON"},
		{"half a file", testToken, "ben", string(art[:len(art)/2]), 400, "not JSON"},
		{"an array", testToken, "ben", `[1, 2]`, 422, "want a JSON object"},
		{"a chart", testToken, "ben", `{"kind": "chart"}`, 422, `kind "chart"`},
		{"tunebench", testToken, "ben", `{"tool": "loadtest tunebench", "tunes": []}`, 422, "tunebench"},
		{"a future run", testToken, "ben", `{"kind": "run", "schema": 99}`, 422, "schema version 99"},
		{"no points", testToken, "ben", `{"kind": "experiment", "schema": 2, "name": "x", "runs": []}`, 422, "no measured points"},
		{"empty tuning", testToken, "ben", `{"tool": "loadtest tune"}`, 422, "without steps"},
	} {
		status, answer := post(t, srv.URL, c.token, c.laptop, []byte(c.body))
		if status != c.status || !strings.Contains(answer, c.says) {
			t.Errorf("%s: %d %q; want %d saying %q", c.name, status, answer, c.status, c.says)
		}
	}
	// Of no length given (chunked), the cap is found while reading.
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/upload", io.MultiReader(strings.NewReader(`{"kind":"run","pad":"`), strings.NewReader(strings.Repeat("x", 3<<20))))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusRequestEntityTooLarge || req.ContentLength != 0 {
		t.Errorf("too large, chunked: %v, %v (length %d); want 413", resp, err, req.ContentLength)
	} else {
		resp.Body.Close()
	}
	resp, err := http.Get(srv.URL + "/upload")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /upload: %d; want 405", resp.StatusCode)
	}
	if got := dirFiles(t, dir); !slices.Equal(got, stored) {
		t.Errorf("after the bad uploads %s holds %q; want %q", dir, got, stored)
	}
	if v := viewJSON(t, srv.URL); v.Uploads != 1 || len(v.Claims) != 1 || len(v.Laptops) != 1 {
		t.Errorf("after the bad uploads: %d uploads, %d laptops; want ana's one", v.Uploads, len(v.Laptops))
	}
}

// TestRoomCutShortUpload: a laptop that disconnects mid-upload has
// nothing stored, and the room goes on serving and taking uploads.
func TestRoomCutShortUpload(t *testing.T) {
	dir := t.TempDir()
	_, srv, logs := serve(t, Options{Dir: dir})
	art := report(t, "article")
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "POST /upload HTTP/1.1\r\nHost: room\r\nAuthorization: Bearer %s\r\n%s: dan\r\nContent-Length: %d\r\n\r\n", testToken, LaptopHeader, len(art))
	conn.Write(art[:len(art)/3])
	conn.Close()
	logs.waitFor(t, "cut short")
	if got := dirFiles(t, dir); len(got) != 0 {
		t.Errorf("after an upload cut short %s holds %q; want nothing", dir, got)
	}
	get(t, srv.URL+"/")
	rec := send(t, srv.URL, "dan", writeFile(t, "experiment.json", art))
	if rec.Laptop != "dan" || rec.Kind != KindExperiment || rec.Name != "article" {
		t.Errorf("receipt %+v; want dan's experiment article", rec)
	}
	if got := dirFiles(t, dir); !slices.Equal(got, []string{rec.Stored}) {
		t.Errorf("%s holds %q; want only %s", dir, got, rec.Stored)
	}
}

// TestRoomRateCap: a laptop over its allowance gets 429 with when to
// come back; Send waits that long and gets through.
func TestRoomRateCap(t *testing.T) {
	_, srv, _ := serve(t, Options{Dir: t.TempDir(), PerMin: 60, Burst: 2})
	run := runFile(t)
	for i, want := range []int{201, 201, 429} {
		if status, answer := post(t, srv.URL, testToken, "ana", run); status != want {
			t.Errorf("upload %d: %d %q; want %d", i+1, status, answer, want)
		}
	}
	path := writeFile(t, "run.json", run)
	_, err := Send(context.Background(), path, SendOptions{URL: srv.URL, Token: testToken, Laptop: "ana", Attempts: 1})
	var refused *SendError
	if !errors.As(err, &refused) || refused.Status != 429 || !strings.Contains(refused.Message, "at most 60 a minute") {
		t.Errorf("one attempt over the cap: %v; want 429 saying the cap", err)
	}
	if rec, err := Send(context.Background(), path, SendOptions{URL: srv.URL, Token: testToken, Laptop: "ana", Attempts: 2, Wait: time.Millisecond}); err != nil || rec.Kind != KindRun {
		t.Errorf("two attempts, the second after Retry-After: %+v, %v; want the run stored", rec, err)
	}
}

// TestSendRetries: Send tries again after a failure the network or the
// room may mend, stops at once on a refusal, stops after its attempts,
// and leaves the file where it was.
func TestSendRetries(t *testing.T) {
	r, _, _ := serve(t, Options{Dir: t.TempDir()})
	var calls, failFirst atomic.Int32
	flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if calls.Add(1) <= failFirst.Load() {
			if hj, ok := w.(http.Hijacker); ok { // the network drops the connection
				c, _, _ := hj.Hijack()
				c.Close()
				return
			}
		}
		r.Handler().ServeHTTP(w, req)
	}))
	defer flaky.Close()
	path := writeFile(t, "run.json", runFile(t))
	opt := SendOptions{URL: flaky.URL, Token: testToken, Laptop: "ana", Attempts: 3, Wait: time.Millisecond}

	failFirst.Store(2)
	if rec, err := Send(context.Background(), path, opt); err != nil || calls.Load() != 3 || rec.Kind != KindRun {
		t.Errorf("two dropped connections then the room: %+v, %v after %d calls; want stored at the third", rec, err, calls.Load())
	}
	calls.Store(0)
	failFirst.Store(10)
	_, err := Send(context.Background(), path, opt)
	if err == nil || !strings.Contains(err.Error(), "attempt 3 of 3") || calls.Load() != 3 {
		t.Errorf("a room out of reach: %v after %d calls; want an error after 3 attempts", err, calls.Load())
	}
	calls.Store(0)
	failFirst.Store(0)
	bad := opt
	bad.Token = "guess"
	_, err = Send(context.Background(), path, bad)
	var refused *SendError
	if !errors.As(err, &refused) || refused.Status != 401 || calls.Load() != 1 {
		t.Errorf("a wrong token: %v after %d calls; want 401 at once", err, calls.Load())
	}
	if got := dirFiles(t, filepath.Dir(path)); !slices.Equal(got, []string{"run.json"}) {
		t.Errorf("the laptop's folder holds %q; want run.json kept", got)
	}
	if hint := ResendHint(path, flaky.URL); !strings.Contains(hint, "-send "+path+" -to "+flaky.URL) {
		t.Errorf("ResendHint = %q; want the command with the file and the room", hint)
	}
}

// TestRoomTunings: a tuning alone and an experiment of tunings show as
// tunings; a laptop with only a tuning has no machine to show.
func TestRoomTunings(t *testing.T) {
	_, srv, _ := serve(t, Options{Dir: t.TempDir()})
	var e struct {
		Tunes []struct {
			Result *tune.Result `json:"result"`
		} `json:"tunes"`
	}
	tb := report(t, "tune")
	if err := json.Unmarshal(tb, &e); err != nil {
		t.Fatal(err)
	}
	one, err := json.Marshal(tune.File{Tool: "loadtest tune", At: time.Now(), Result: e.Tunes[0].Result})
	if err != nil {
		t.Fatal(err)
	}
	send(t, srv.URL, "eri", writeFile(t, "tune.json", one))
	send(t, srv.URL, "fumi", writeFile(t, "experiment.json", tb))
	v := viewJSON(t, srv.URL)
	if len(v.Tunings) != 1+len(e.Tunes) || v.Tunings[0].Laptop != "eri" || v.Tunings[0].Source != "loadtest tune" {
		t.Fatalf("tunings %+v; want eri's then fumi's %d", v.Tunings, len(e.Tunes))
	}
	tu := v.Tunings[0]
	if tu.Start != "5/5" || tu.Winner != "15/15" || tu.Best <= 0 || tu.Outcome != "capacity" {
		t.Errorf("eri's tuning %+v; want 5/5 to 15/15 with the winner's throughput, capacity", tu)
	}
	if v.Laptops[0].Host != nil || len(v.Claims) != 1 || v.Claims[0].Experiment != "tune" {
		t.Errorf("eri's machine %+v, claims %+v; want none, and the tune experiment's claims", v.Laptops[0].Host, v.Claims)
	}
	if page := get(t, srv.URL+"/"); !strings.Contains(page, "<td>15/15</td>") || !strings.Contains(page, "names none") {
		t.Errorf("page lacks the tuning's winner or the missing machine's note:\n%s", page)
	}
}

// TestRoomSweepAndRuns: a sweep is one laptop's line, replaced by its
// next sweep of the name; single runs add up to a line, a later run of
// a client count replacing the earlier.
func TestRoomSweepAndRuns(t *testing.T) {
	_, srv, _ := serve(t, Options{Dir: t.TempDir()})
	sweep := func(points ...int) []byte {
		var runs []json.RawMessage
		for _, i := range points {
			runs = append(runs, runAt(t, i))
		}
		b, err := json.Marshal(map[string]any{"schema": 2, "kind": "sweep", "name": "mine", "runs": runs})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	send(t, srv.URL, "ben", writeFile(t, "sweep.json", sweep(0, 1, 2)))
	send(t, srv.URL, "ben", writeFile(t, "sweep.json", sweep(3, 4)))
	for _, i := range []int{1, 2, 2} {
		send(t, srv.URL, "dan", writeFile(t, "run.json", runAt(t, i)))
	}
	v := viewJSON(t, srv.URL)
	clients := func(c Curve) (out []int) {
		for _, p := range c.Points {
			out = append(out, p.Clients)
		}
		return out
	}
	if len(v.Curves) != 2 || v.Curves[0].Source != "sweep mine" || v.Curves[1].Source != "loadtest run" {
		t.Fatalf("curves %+v; want sweep mine and loadtest run", v.Curves)
	}
	if got := clients(v.Curves[0].Lines[0]); len(v.Curves[0].Lines) != 1 || !slices.Equal(got, []int{10, 15}) {
		t.Errorf("ben's sweep line: clients %v; want the later sweep's 10, 15 alone", got)
	}
	if got := clients(v.Curves[1].Lines[0]); len(v.Curves[1].Lines) != 1 || !slices.Equal(got, []int{2, 5}) {
		t.Errorf("dan's runs: clients %v; want 2 and 5, once each", got)
	}
	if svg := get(t, srv.URL+"/chart/"+v.Curves[1].ID); !strings.Contains(svg, "dan") {
		t.Errorf("the runs' chart does not name dan")
	}
}
