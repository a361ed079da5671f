package live

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// second returns a typical per-second frame at t.
func second(t float64) Frame {
	return Frame{
		T: t,
		Progress: Progress{Experiment: "pool-size", Run: "AllView", Step: 2, Steps: 5, Clients: 20,
			Elapsed: t, Left: math.Max(0, 120-t)},
		Client: Client{Throughput: 1234.5, P50: 1.2, P90: 3.4, P99: 9.8,
			Errors: []Count{{Kind: "timeout", Count: 2}}},
		Server: []Series{
			{Name: "server CPU", Unit: "% of a core", Panel: "CPU", Value: 87.5},
			{Name: "machine CPU", Unit: "% of a core", Panel: "CPU", Value: 180},
			{Name: "pool in use", Unit: "connections", Panel: "pool", Value: 10},
			{Name: "pool waiting", Unit: "acquires", Panel: "pool", Value: 4.2},
		},
		Doing: []Share{{Name: "waiting for a worker", Value: 3}, {Name: "waiting for a connection", Value: 4.2},
			{Name: "in SQL", Value: 6}, {Name: "elsewhere", Value: 0.8}},
	}
}

// stepFrame is a per-second frame that also carries a completed step and claims.
func stepFrame(t float64, run string, clients int) Frame {
	f := second(t)
	f.Step = &Step{Run: run, Clients: clients, Throughput: 1000 + float64(clients), P50: 1, P99: 10, Mean: 2, Requests: 30000, Errors: 3}
	f.Claims = []Claim{{ID: "c1", Text: "throughput levels off at the pool size", Outcome: Inconclusive}}
	return f
}

// doneFrame is the last frame: between the seconds, with the claims and
// the experiment's summary.
func doneFrame(t float64) Frame {
	f := second(t)
	f.Client, f.Server, f.Doing, f.Between = Client{}, nil, nil, true
	f.Claims = []Claim{{ID: "c1", Text: "throughput levels off at the pool size", Outcome: Reproduced}}
	f.Done = true
	f.Summary = &Summary{Peak: &Step{Run: "AllView", Clients: 10, Throughput: 1010, P50: 1, P99: 10, Mean: 2, Requests: 30300, Errors: 3},
		Steps: 4, Requests: 98765, Errors: 7, Duration: t}
	return f
}

// noteFrame is a frame between the seconds with the experiment's notes.
func noteFrame(t float64, notes ...string) Frame {
	f := second(t)
	f.Client, f.Server, f.Doing, f.Between, f.Notes = Client{}, nil, nil, true, notes
	f.Progress.Phase = "calibrating"
	return f
}

// The frame schema: for each object, the keys it must have and the keys it
// may have. A frame's JSON must have every required key and no other.
var schema = map[string]struct{ required, optional []string }{
	"frame":    {[]string{"t", "progress", "client", "server", "doing", "done"}, []string{"step", "claims", "summary", "between", "notes"}},
	"progress": {[]string{"experiment", "run", "step", "steps", "clients", "elapsed", "left"}, []string{"phase"}},
	"client":   {[]string{"throughput", "p50_ms", "p90_ms", "p95_ms", "p99_ms", "errors"}, nil},
	"error":    {[]string{"kind", "count"}, nil},
	"series":   {[]string{"name", "unit", "panel", "value"}, nil},
	"share":    {[]string{"name", "value"}, nil},
	"step":     {[]string{"run", "clients", "throughput", "p50_ms", "p99_ms", "mean_ms", "requests", "errors"}, nil},
	"summary":  {[]string{"steps", "requests", "errors", "duration"}, []string{"peak"}},
	"claim":    {[]string{"id", "text", "outcome"}, nil},
}

// checkShape checks obj's keys against schema[kind].
func checkShape(t *testing.T, where, kind string, obj any) map[string]any {
	t.Helper()
	m, ok := obj.(map[string]any)
	if !ok {
		t.Fatalf("%s: %s is %T, want an object", where, kind, obj)
	}
	s := schema[kind]
	for _, k := range s.required {
		if _, ok := m[k]; !ok {
			t.Errorf("%s: %s lacks required key %q (has %v)", where, kind, k, slices.Sorted(maps.Keys(m)))
		}
	}
	for k := range m {
		if !slices.Contains(s.required, k) && !slices.Contains(s.optional, k) {
			t.Errorf("%s: %s has undocumented key %q", where, kind, k)
		}
	}
	return m
}

// checkFrameShape checks one frame's JSON against the schema, all the way down.
func checkFrameShape(t *testing.T, where string, data []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: not JSON: %v: %s", where, err, data)
	}
	f := checkShape(t, where, "frame", v)
	checkShape(t, where, "progress", f["progress"])
	c := checkShape(t, where, "client", f["client"])
	list := func(key string, of any) []any {
		l, ok := of.([]any)
		if !ok {
			t.Fatalf("%s: %s is %T, want an array", where, key, of)
		}
		return l
	}
	for _, e := range list("client.errors", c["errors"]) {
		checkShape(t, where, "error", e)
	}
	for _, s := range list("server", f["server"]) {
		checkShape(t, where, "series", s)
	}
	for _, s := range list("doing", f["doing"]) {
		checkShape(t, where, "share", s)
	}
	if s, ok := f["step"]; ok {
		checkShape(t, where, "step", s)
	}
	if cl, ok := f["claims"]; ok {
		for _, c := range list("claims", cl) {
			checkShape(t, where, "claim", c)
		}
	}
	if n, ok := f["notes"]; ok {
		for i, v := range list("notes", n) {
			if _, ok := v.(string); !ok {
				t.Errorf("%s: notes[%d] is %T, want a string", where, i, v)
			}
		}
	}
	if s, ok := f["summary"]; ok {
		m := checkShape(t, where, "summary", s)
		if p, ok := m["peak"]; ok {
			checkShape(t, where, "step", p)
		}
	}
	// And it decodes into Frame with no field left over.
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var fr Frame
	if err := dec.Decode(&fr); err != nil {
		t.Errorf("%s: decode into Frame: %v", where, err)
	}
}

// event is one server-sent event.
type event struct {
	id   string
	data []byte
}

// readEvents reads n events from an SSE stream.
func readEvents(t *testing.T, body io.Reader, n int) []event {
	t.Helper()
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var out []event
	var cur event
	for len(out) < n && sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.data != nil {
				out = append(out, cur)
			}
			cur = event{}
		case strings.HasPrefix(line, "id: "):
			cur.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "data: "):
			if cur.data != nil {
				t.Fatalf("event %d has two data lines", len(out))
			}
			cur.data = []byte(strings.TrimPrefix(line, "data: "))
		default:
			t.Fatalf("unexpected stream line %q", line)
		}
	}
	if len(out) < n {
		t.Fatalf("stream ended after %d events, want %d (%v)", len(out), n, sc.Err())
	}
	return out
}

// open starts a stream with an optional Last-Event-ID.
func open(t *testing.T, url, lastID string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url+"/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET /events: %s, Content-Type %q", res.Status, res.Header.Get("Content-Type"))
	}
	return res
}

// TestEventsSchema publishes frames of every kind (plain second, empty
// lists, notes between the seconds, step with claims, done) and checks each event of /events against
// the documented schema, and that /frames.json holds the same frames.
func TestEventsSchema(t *testing.T) {
	h := New()
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()
	defer h.Close()

	empty := Frame{T: 0.5} // no server, doing or errors yet: they still appear, as []
	frames := []Frame{empty, second(1), noteFrame(1.5, "server pinned to CPU 1"), stepFrame(2, "AllView", 10), doneFrame(3)}
	if err := h.Publish(frames[0]); err != nil {
		t.Fatal(err)
	}
	res := open(t, srv.URL, "") // a late joiner: frame 0 comes from the history
	for _, f := range frames[1:] {
		if err := h.Publish(f); err != nil {
			t.Fatal(err)
		}
	}
	events := readEvents(t, res.Body, len(frames))
	for i, e := range events {
		where := "event " + e.id
		if want := string(rune('1' + i)); e.id != want {
			t.Errorf("event %d has id %q, want %q", i, e.id, want)
		}
		checkFrameShape(t, where, e.data)
		var got Frame
		if err := json.Unmarshal(e.data, &got); err != nil {
			t.Fatal(err)
		}
		if got.T != frames[i].T || got.Done != frames[i].Done || (got.Step != nil) != (frames[i].Step != nil) ||
			len(got.Server) != len(frames[i].Server) || len(got.Claims) != len(frames[i].Claims) || (got.Summary != nil) != (frames[i].Summary != nil) ||
			got.Between != frames[i].Between || !slices.Equal(got.Notes, frames[i].Notes) || got.Progress.Phase != frames[i].Progress.Phase {
			t.Errorf("%s decodes to %+v; want %+v", where, got, frames[i])
		}
	}

	jr, err := http.Get(srv.URL + "/frames.json")
	if err != nil {
		t.Fatal(err)
	}
	defer jr.Body.Close()
	var all []json.RawMessage
	if err := json.NewDecoder(jr.Body).Decode(&all); err != nil {
		t.Fatalf("/frames.json: %v", err)
	}
	if len(all) != len(frames) {
		t.Fatalf("/frames.json has %d frames, want %d", len(all), len(frames))
	}
	for i, raw := range all {
		checkFrameShape(t, "frames.json["+string(rune('0'+i))+"]", raw)
		if !bytes.Equal(raw, events[i].data) {
			t.Errorf("frames.json[%d] = %s; the stream sent %s", i, raw, events[i].data)
		}
	}
}

// TestReconnectGetsOnlyWhatItMissed checks that Last-Event-ID skips the
// frames a browser already has, and that a bad one is refused.
func TestReconnectGetsOnlyWhatItMissed(t *testing.T) {
	h := New()
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()
	defer h.Close()
	for i := range 5 {
		if err := h.Publish(second(float64(i))); err != nil {
			t.Fatal(err)
		}
	}
	events := readEvents(t, open(t, srv.URL, "3").Body, 2)
	if events[0].id != "4" || events[1].id != "5" {
		t.Errorf("after Last-Event-ID 3 got ids %s, %s; want 4, 5", events[0].id, events[1].id)
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/events", nil)
	req.Header.Set("Last-Event-ID", "x")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("Last-Event-ID x: %s, want 400", res.Status)
	}
}

// TestSlowBrowserDropsFrames checks that a subscriber that never reads
// does not block Publish: past its buffer its frames are counted as dropped.
func TestSlowBrowserDropsFrames(t *testing.T) {
	h := New()
	s, _, ok := h.subscribe(0)
	if !ok {
		t.Fatal("subscribe failed on a new hub")
	}
	const n = subscriberBuffer + 50
	for i := range n {
		if err := h.Publish(second(float64(i))); err != nil {
			t.Fatal(err)
		}
	}
	if got := h.Dropped(); got != n-subscriberBuffer {
		t.Errorf("Dropped() = %d after %d frames to a subscriber buffering %d; want %d", got, n, subscriberBuffer, n-subscriberBuffer)
	}
	if len(s.ch) != subscriberBuffer {
		t.Errorf("subscriber holds %d frames, want %d", len(s.ch), subscriberBuffer)
	}
	h.Close()
	if err := h.Publish(second(1)); err == nil {
		t.Error("Publish after Close succeeded")
	}
	if _, _, ok := h.subscribe(0); ok {
		t.Error("subscribe after Close succeeded")
	}
}

// TestHistoryBounded checks that the history keeps the last
// MaxSecondFrames per-second frames and every step and note frame, in
// order.
func TestHistoryBounded(t *testing.T) {
	h := New()
	const extra = 25
	steps, notes := 0, 0
	for i := range MaxSecondFrames + extra {
		f := second(float64(i))
		switch {
		case i%500 == 0:
			f = stepFrame(float64(i), "run", i)
			steps++
		case i%500 == 1:
			f = noteFrame(float64(i), fmt.Sprintf("note %d", i))
			notes++
		}
		if err := h.Publish(f); err != nil {
			t.Fatal(err)
		}
	}
	frames, err := h.Frames()
	if err != nil {
		t.Fatal(err)
	}
	var gotSteps, gotNotes, gotSeconds int
	for i, f := range frames {
		switch {
		case f.Step != nil:
			gotSteps++
		case len(f.Notes) > 0:
			gotNotes++
		default:
			gotSeconds++
		}
		if i > 0 && f.T <= frames[i-1].T {
			t.Fatalf("history out of order at %d: t=%v after t=%v", i, f.T, frames[i-1].T)
		}
	}
	if gotSteps != steps || gotNotes != notes || gotSeconds != MaxSecondFrames {
		t.Errorf("history holds %d step frames, %d note frames and %d per-second frames; want %d, %d and %d",
			gotSteps, gotNotes, gotSeconds, steps, notes, MaxSecondFrames)
	}
	if frames[1].T != 1 || !slices.Equal(frames[1].Notes, []string{"note 1"}) {
		t.Errorf("history's second frame %+v; want the first note (t=1), kept past the per-second limit", frames[1])
	}
	// The oldest per-second frames went: the first one kept is not t=2.
	for _, f := range frames {
		if f.Step == nil && len(f.Notes) == 0 {
			if f.T == 2 {
				t.Errorf("the oldest per-second frame t=2 is still kept")
			}
			break
		}
	}
}

// TestValidate checks that each kind of bad frame is refused with a
// message naming the field.
func TestValidate(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(*Frame)
		field string
	}{
		{"NaN p99", func(f *Frame) { f.Client.P99 = math.NaN() }, "client.p99_ms"},
		{"negative throughput", func(f *Frame) { f.Client.Throughput = -1 }, "client.throughput"},
		{"infinite t", func(f *Frame) { f.T = math.Inf(1) }, "t"},
		{"step past steps", func(f *Frame) { f.Progress.Step = 9 }, "progress"},
		{"unnamed series", func(f *Frame) { f.Server[0].Name = "" }, "server[0]"},
		{"NaN series", func(f *Frame) { f.Server[1].Value = math.NaN() }, "server[1]"},
		{"negative share", func(f *Frame) { f.Doing[2].Value = -0.5 }, "doing[2]"},
		{"error without kind", func(f *Frame) { f.Client.Errors[0].Kind = "" }, "client.errors[0]"},
		{"unknown outcome", func(f *Frame) { f.Claims[0].Outcome = "maybe" }, "claims[0]"},
		{"claim without id", func(f *Frame) { f.Claims[0].ID = "" }, "claims[0]"},
		{"step without run", func(f *Frame) { f.Step.Run = "" }, "step.run"},
		{"NaN step mean", func(f *Frame) { f.Step.Mean = math.NaN() }, "step.mean_ms"},
		{"step errors past requests", func(f *Frame) { f.Step.Errors = f.Step.Requests + 1 }, "step:"},
		{"summary before the end", func(f *Frame) { f.Summary = doneFrame(1).Summary }, "summary on a frame that is not done"},
		{"negative summary", func(f *Frame) { f.Done, f.Summary = true, &Summary{Requests: -1} }, "summary:"},
		{"NaN peak p99", func(f *Frame) { f.Done, f.Summary = true, doneFrame(1).Summary; f.Summary.Peak.P99 = math.NaN() }, "summary.peak.p99_ms"},
		{"peak without run", func(f *Frame) { f.Done, f.Summary = true, doneFrame(1).Summary; f.Summary.Peak.Run = "" }, "summary.peak.run"},
		{"empty note", func(f *Frame) { f.Notes = []string{"server pinned to CPU 1", " "} }, "notes[1]"},
		{"between with a second's figures", func(f *Frame) { f.Between = true }, "between"},
		{"between with errors only", func(f *Frame) {
			f.Between, f.Client, f.Server, f.Doing = true, Client{Errors: f.Client.Errors}, nil, nil
		}, "between"},
	}
	for _, good := range []Frame{stepFrame(1, "r", 1), doneFrame(2), noteFrame(3, "a note")} {
		if err := good.Validate(); err != nil {
			t.Fatalf("a good frame: %v", err)
		}
	}
	for _, c := range cases {
		f := stepFrame(1, "r", 1)
		f.Server = slices.Clone(f.Server)
		c.edit(&f)
		err := New().Publish(f)
		if err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("Publish(%s) = %v; want an error naming %s", c.name, err, c.field)
		}
	}
}

// TestServeLoopbackOnly checks that Serve refuses addresses other machines
// reach unless allowed, serves the page on loopback, and stops with ctx.
func TestServeLoopbackOnly(t *testing.T) {
	h := New()
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:0"} {
		if _, err := Serve(t.Context(), addr, h); err == nil || !strings.Contains(err.Error(), "not loopback") {
			t.Errorf("Serve(%q) = %v; want a not-loopback error", addr, err)
		}
	}
	if _, err := Serve(t.Context(), "127.0.0.1", h); err == nil {
		t.Error("Serve without a port succeeded")
	}
	ctx, cancel := context.WithCancel(t.Context())
	s, err := Serve(ctx, "127.0.0.1:0", h)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Get(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !bytes.Contains(page, []byte(`id="status"`)) || !bytes.Contains(page, []byte("uPlot")) {
		t.Errorf("GET %s: %s, %d bytes; want the dashboard", s.URL, res.Status, len(page))
	}
	stream := open(t, strings.TrimSuffix(s.URL, "/"), "")
	cancel() // ends the open stream too
	if err := s.Wait(); err != nil {
		t.Errorf("Wait after cancel: %v", err)
	}
	io.Copy(io.Discard, stream.Body) // returns: the stream has ended
}

// TestWriteReport checks that the report inlines uPlot, the page's script
// and the frames (notes too), refers to no other file, keeps hostile text
// inert, and refuses a bad frame.
func TestWriteReport(t *testing.T) {
	f := stepFrame(1, "AllView", 10)
	f.Claims[0].Text = `</script><script>alert(1)</script>`
	var b bytes.Buffer
	if err := WriteReport(&b, []Frame{second(0), noteFrame(0.5, "server pinned to CPU 1", "<b>bold</b>"), f}, "pool <size>"); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"leeoniya/uPlot (v1.6.32)", `<script id="frames" type="application/json">[{"t":0,`,
		`"between":true,"notes":["server pinned to CPU 1","\u003cb\u003ebold\u003c/b\u003e"]`, `<section id="notes" hidden>`,
		"window.dashboard", "<title>pool &lt;size&gt;</title>", `\u003c/script\u003e\u003cscript\u003ealert(1)`} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, bad := range []string{"alert(1)</script>", ` src="`, `<link `, "http://", "https://cdn"} {
		if strings.Contains(page, bad) {
			t.Errorf("report contains %q", bad)
		}
	}
	if strings.Contains(page, `id="appendix"`) {
		t.Errorf("report has an appendix section without Appendix")
	}
	b.Reset()
	if err := WriteReport(&b, []Frame{second(0)}, "x", Appendix("<h2>Claims</h2>", "#appendix h2{color:red}")); err != nil {
		t.Fatal(err)
	}
	page = b.String()
	i, j := strings.Index(page, `<main id="panels"></main>`), strings.Index(page, `<section id="appendix"><h2>Claims</h2></section>`)
	if i < 0 || j < i || !strings.Contains(page, "<style>#appendix h2{color:red}</style>") {
		t.Errorf("report with Appendix: panels at %d, appendix at %d, style %v; want the sections after the panels and their style in the head",
			i, j, strings.Contains(page, "#appendix h2{color:red}"))
	}
	f.Client.P50 = math.NaN()
	if err := WriteReport(io.Discard, []Frame{f}, "x"); err == nil || !strings.Contains(err.Error(), "frame 0") {
		t.Errorf("WriteReport with a NaN = %v; want an error naming frame 0", err)
	}
}

// BenchmarkPublish measures Publish of a typical frame (4 server series,
// 4 shares, one error kind) to 3 subscribers, each writing the event as
// /events does, waiting each time until all three have written it: the
// dashboard's whole cost on the generator per frame, of which it sends
// one a second.
func BenchmarkPublish(b *testing.B) {
	h := New()
	var wrote sync.WaitGroup
	var subs []*subscriber
	for range 3 {
		s, _, _ := h.subscribe(0)
		subs = append(subs, s)
		go func() {
			for e := range s.ch {
				writeEvent(io.Discard, e)
				wrote.Done()
			}
		}()
	}
	f := second(1)
	b.ReportAllocs()
	for b.Loop() {
		wrote.Add(3)
		if err := h.Publish(f); err != nil {
			b.Fatal(err)
		}
		wrote.Wait()
	}
	b.StopTimer()
	for _, s := range subs {
		h.unsubscribe(s)
		close(s.ch)
	}
	if d := h.Dropped(); d != 0 {
		b.Errorf("%d frames dropped", d)
	}
}
