package bbs

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"bbslab/behave"
	"bbslab/entity/fake"
	"bbslab/truth"
)

// TestTruthEndToEnd serves the board on a real listener with stalls on
// (every 400 ms for 200 ms), records a truth window through the admin
// listener while the test sends known requests (some answered with
// injected statuses) and holds one request across a stall it triggers,
// then checks the truth against what was sent.
func TestTruthEndToEnd(t *testing.T) {
	st := fake.New(50)
	beh := behave.New(behave.Settings{StallEvery: 400 * time.Millisecond, StallFor: 200 * time.Millisecond})
	rec := truth.New(0)
	dir := t.TempDir()
	tdir, err := truth.OpenDir(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tdir.Close()
	s := New(Options{Store: st, Workers: 4, Queue: 8, QueueTimeout: time.Minute, Behaviour: beh, Truth: rec, TruthDir: tdir})
	s.SetReady(true)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: s.Handler(), ConnContext: truth.ConnContext}
	go srv.Serve(truth.Listener(l, rec))
	t.Cleanup(func() { srv.Close() })
	board := "http://" + l.Addr().String() + "/bbs?cmd=AllView"
	adm := newAdmin(t, s)

	// Before the window: not counted.
	get(t, board)
	if resp, body := post(t, adm+"/admin/truth/start?log=1", nil); resp.StatusCode != 200 {
		t.Fatalf("truth start: %d %s", resp.StatusCode, body)
	}
	sent := map[int]int{}
	send := func(u string, want int) {
		resp, _ := get(t, u)
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d; want %d", u, resp.StatusCode, want)
		}
		sent[resp.StatusCode]++
	}
	for range 8 {
		send(board, 200)
	}
	send(board+"&status=418", 418)
	post(t, adm+"/admin/behaviour", url.Values{"error_status": {"503"}, "error_share": {"1"}})
	send(board, 503)
	send(board, 503)
	post(t, adm+"/admin/behaviour", url.Values{"error_share": {"0"}})

	// One request held in the store while the test triggers a stall: its
	// response cannot be written before the stall ends, so its time at the
	// server is at least the stall's length, whatever the machine's speed.
	st.Gate = make(chan struct{})
	done := make(chan int)
	go func() {
		resp, err := http.Get(board)
		if err != nil {
			done <- -1
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	waitUntil(t, "the request to wait in the store", func() bool { return st.Waiting.Load() == 1 })
	const stall = 300 * time.Millisecond
	if resp, body := post(t, adm+"/admin/behaviour", url.Values{"stall_now": {stall.String()}}); resp.StatusCode != 200 {
		t.Fatalf("stall_now: %d %s", resp.StatusCode, body)
	}
	close(st.Gate)
	if code := <-done; code != 200 {
		t.Fatalf("held request: %d; want 200", code)
	}
	sent[200]++

	file := filepath.Join(dir, "truth.json")
	resp, body := post(t, adm+"/admin/truth/stop?file=truth.json", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("truth stop: %d %s", resp.StatusCode, body)
	}
	var rep truth.Report
	if err := json.Unmarshal([]byte(body), &rep); err != nil {
		t.Fatal(err)
	}
	total := 0
	for code, n := range sent {
		total += n
		if got := rep.Status[strconv.Itoa(code)]; got != int64(n) {
			t.Errorf("truth status %d = %d; want %d (status %v)", code, got, n, rep.Status)
		}
	}
	if rep.Requests != int64(total) || len(rep.Status) != len(sent) {
		t.Errorf("truth requests %d, status %v; want %d, %v", rep.Requests, rep.Status, total, sent)
	}
	var perSecond int64
	for _, sec := range rep.Seconds {
		perSecond += sec.Requests
	}
	if perSecond != int64(total) || rep.ServerMS.Count != int64(total) || rep.ServiceMS.Count != int64(total) {
		t.Errorf("seconds add up to %d, server_ms count %d, service_ms count %d; want %d", perSecond, rep.ServerMS.Count, rep.ServiceMS.Count, total)
	}
	if rep.ServerMS.Max < float64(stall.Milliseconds()) {
		t.Errorf("server_ms max = %v ms; want at least the stall's %v", rep.ServerMS.Max, stall)
	}
	if rep.ServerMS.Max < rep.ServiceMS.Max || rep.ServerMS.P50 < rep.ServiceMS.P50 {
		t.Errorf("server_ms %+v below service_ms %+v", rep.ServerMS, rep.ServiceMS)
	}
	triggered := false
	for _, sp := range rep.Stalls {
		triggered = triggered || sp.End.Sub(sp.Start) == stall
	}
	if !triggered || rep.Window.Open || rep.Window.End == "" || rep.Version != 1 {
		t.Errorf("stalls %v (want one of %v), window %+v, version %d", rep.Stalls, stall, rep.Window, rep.Version)
	}
	if b, err := os.ReadFile(file); err != nil || !strings.Contains(string(b), `"requests": `+strconv.Itoa(total)) {
		t.Errorf("truth file: %v %.300s; want the report", err, b)
	}
	_, lines := get(t, adm+"/admin/truth/log")
	if n := strings.Count(lines, "\n"); n != total || !strings.Contains(lines, `"path":"/bbs"`) {
		t.Errorf("truth log: %d lines; want %d with the path: %.300s", n, total, lines)
	}

	// After the stop nothing is counted; bad parameters answer 400.
	get(t, board)
	if _, body := get(t, adm+"/admin/truth"); !strings.Contains(body, `"requests":`+strconv.Itoa(total)+`,`) {
		t.Errorf("after the stop: %.200s; want still %d requests", body, total)
	}
	for _, u := range []string{"/admin/truth/start?at=yesterday", "/admin/truth/start?until=2000-01-01T00:00:00Z", "/admin/truth/start?log=maybe"} {
		_, query, _ := strings.Cut(u, "?")
		key, _, _ := strings.Cut(query, "=")
		if resp, body := post(t, adm+u, nil); resp.StatusCode != 400 || !strings.Contains(body, key+":") {
			t.Errorf("POST %s: %d %s; want 400 naming %s", u, resp.StatusCode, body, key)
		}
	}
}
