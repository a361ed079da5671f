package bbs

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"bbslab/entity"
	"bbslab/entity/fake"
	"bbslab/knob"
)

// postKnobs posts to /admin/knobs with the query q and decodes a KnobStats
// answer (on 200 and 202); the string is the body, or an error's message.
func postKnobs(t *testing.T, adm, q string, hdr ...string) (int, KnobStats, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", adm+"/admin/knobs?"+q, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, body := do(t, req)
	var k KnobStats
	if resp.StatusCode == 200 || resp.StatusCode == 202 {
		if err := json.Unmarshal([]byte(body), &k); err != nil {
			t.Fatalf("POST /admin/knobs?%s: %v in %s", q, err, body)
		}
		return resp.StatusCode, k, body
	}
	var e jsonError
	if err := json.Unmarshal([]byte(body), &e); err == nil && e.Error != "" {
		body = e.Error
	}
	return resp.StatusCode, k, body
}

// adminStatsOf reads /admin/stats.
func adminStatsOf(t *testing.T, adm string) Stats {
	t.Helper()
	_, body := get(t, adm+"/admin/stats")
	var st Stats
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatalf("/admin/stats: %v", err)
	}
	return st
}

// TestKnobsSet sets every knob in one POST and reads the new values back
// from the answer, GET /admin/knobs, /admin/stats (workers, db_pool,
// knobs) and /metrics, with when the change took effect.
func TestKnobsSet(t *testing.T) {
	s, _, _, adm := newInstrumentsTest(t, Options{Workers: 4, Queue: 10, QueueTimeout: time.Second})
	if _, body := get(t, adm.URL+"/admin/knobs"); !strings.Contains(body, `"workers":4`) || strings.Contains(body, "changed_at") {
		t.Errorf("GET /admin/knobs before a change = %s; want workers 4 and no changed_at", body)
	}
	before := time.Now()
	code, k, body := postKnobs(t, adm.URL, "workers=3&queue=7&queue_timeout=2s&pool=6&pool_min=2")
	if code != 200 || k.Workers != 3 || k.Queue != 7 || k.QueueTimeout != "2s" || k.Pool != 6 || k.PoolMin != 2 || k.Changes != 1 ||
		len(k.Pending) != 0 || k.ChangedAt == nil || k.EffectiveAt == nil || k.ChangedAt.Before(before) || k.EffectiveAt.Before(*k.ChangedAt) {
		t.Fatalf("POST every knob: %d %s; want 200, the new values, changed and effective now", code, body)
	}
	st := adminStatsOf(t, adm.URL)
	if st.Workers.Size != 3 || st.Workers.QueueSize != 7 || st.Workers.QueueTimeoutSeconds != 2 || st.DBPool.Size != 6 || st.DBPool.Min != 2 ||
		st.Knobs.Changes != 1 || st.Knobs.EffectiveAt == nil || !st.Knobs.EffectiveAt.Equal(*k.EffectiveAt) {
		t.Errorf("/admin/stats after the change: workers %+v, db_pool size %d min %d, knobs %+v; want the new values", st.Workers, st.DBPool.Size, st.DBPool.Min, st.Knobs)
	}
	expectMetrics(t, adm.URL, map[string]float64{
		"bbs_workers_limit": 3, "bbs_worker_queue_limit": 7, "bbs_worker_queue_timeout_seconds": 2,
		"bbs_db_pool_size": 6, "bbs_db_pool_min": 2, "bbs_knob_changes_total": 1,
		"bbs_knobs_effective_timestamp_seconds": unixSeconds(*k.EffectiveAt),
	})
	// pool alone sets min = max; pool_min alone keeps the maximum.
	if code, k, body := postKnobs(t, adm.URL, "pool=5"); code != 200 || k.Pool != 5 || k.PoolMin != 5 || k.Workers != 3 {
		t.Errorf("POST pool=5: %d %s; want pool and pool_min 5, workers kept", code, body)
	}
	if code, k, body := postKnobs(t, adm.URL, "pool_min=1"); code != 200 || k.Pool != 5 || k.PoolMin != 1 || k.Changes != 3 {
		t.Errorf("POST pool_min=1: %d %s; want pool 5 kept, pool_min 1, 3 changes", code, body)
	}
	if w := s.limit.settings(); w.size != 3 || w.queue != 7 || w.timeout != 2*time.Second {
		t.Errorf("limiter after the changes: %+v", w)
	}
}

// TestKnobsBadInput checks that every bad value answers 400 naming the
// key and changes nothing, not even the knobs given correctly beside it.
func TestKnobsBadInput(t *testing.T) {
	_, st, _, adm := newInstrumentsTest(t, Options{Workers: 4, Queue: 10, QueueTimeout: time.Second})
	st.Resize(context.Background(), 3, 3)
	for _, c := range []struct{ q, want string }{
		{"", "give at least one of"},
		{"wait=1s", "give at least one of"},
		{"workers=-1", `workers = "-1"`},
		{"workers=0", `workers = "0"`},
		{"workers=100001", `workers = "100001"`},
		{"workers=abc", `workers = "abc"`},
		{"workers=", `workers = ""`},
		{"workers=2.5", `workers = "2.5"`},
		{"queue=-1", `queue = "-1"`},
		{"queue=1000001", `queue = "1000001"`},
		{"queue_timeout=0s", `queue_timeout = "0s"`},
		{"queue_timeout=-1s", `queue_timeout = "-1s"`},
		{"queue_timeout=2h", `queue_timeout = "2h"`},
		{"queue_timeout=5", `queue_timeout = "5"`},
		{"pool=0", `pool = "0"`},
		{"pool=10001", `pool = "10001"`},
		{"pool=x", `pool = "x"`},
		{"pool_min=0", `pool_min = "0"`},
		{"pool=4&pool_min=5", "pool_min = 5 is above pool = 4"},
		{"pool_min=4", "pool_min = 4 is above pool = 3"},
		{"workers=2&pool=-3", `pool = "-3"`},
		{"workers=2&wait=2m", `wait = "2m"`},
		{"worker=2", `unknown key "worker"`},
		{"workers=2&tokenx=1", `unknown key "tokenx"`},
	} {
		code, _, body := postKnobs(t, adm.URL, c.q)
		if code != 400 || !strings.Contains(body, c.want) || !strings.Contains(body, "nothing changed") {
			t.Errorf("POST /admin/knobs?%s: %d %s; want 400 saying %q and nothing changed", c.q, code, body, c.want)
		}
	}
	k := adminStatsOf(t, adm.URL).Knobs
	if k.Workers != 4 || k.Queue != 10 || k.QueueTimeoutSeconds != 1 || k.Pool != 3 || k.PoolMin != 3 || k.Changes != 0 || k.ChangedAt != nil {
		t.Errorf("after the bad POSTs: %+v; want every knob as it was and no change", k)
	}
	req, _ := http.NewRequest("PUT", adm.URL+"/admin/knobs?workers=2", nil)
	if resp, _ := do(t, req); resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD, POST" {
		t.Errorf("PUT /admin/knobs: %d Allow %q; want 405 naming GET, HEAD, POST", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

// unresizable is a store whose pool cannot change while it runs.
type unresizable struct{ entity.Store }

// TestKnobsFixed checks the 409s: a board started without a worker limit
// cannot get one live, a store that cannot resize its pool says so, and
// a POST that mixes such a knob with others changes none of them.
func TestKnobsFixed(t *testing.T) {
	s := New(Options{Store: unresizable{fake.New(10)}, Workers: 0})
	adm := httptest.NewServer(s.AdminHandler())
	defer adm.Close()
	for _, c := range []struct{ q, want string }{
		{"workers=4", "workers = 0 (no limit)"},
		{"queue=4", "workers = 0 (no limit)"},
		{"pool=4", "cannot change its pool"},
		{"pool_min=1", "cannot change its pool"},
	} {
		code, _, body := postKnobs(t, adm.URL, c.q)
		if code != 409 || !strings.Contains(body, c.want) || !strings.Contains(body, "restart") {
			t.Errorf("POST /admin/knobs?%s: %d %s; want 409 saying %q and to restart", c.q, code, body, c.want)
		}
	}
	if k := s.knobStats(); k.Changes != 0 || k.Fixed["workers"] == "" || k.Fixed["pool"] == "" || k.Workers != 0 {
		t.Errorf("knobs after the refusals: %+v; want no change, workers and pool named fixed", k)
	}

	s = New(Options{Store: unresizable{fake.New(10)}, Workers: 4, Queue: 4})
	adm2 := httptest.NewServer(s.AdminHandler())
	defer adm2.Close()
	if code, _, body := postKnobs(t, adm2.URL, "workers=2&pool=2"); code != 409 || s.limit.settings().size != 4 {
		t.Errorf("POST workers=2&pool=2 on a store that cannot resize: %d %s, workers %d; want 409 and workers 4 unchanged", code, body, s.limit.settings().size)
	}
}

// TestKnobsPending shrinks the worker limit below the requests running:
// with wait=0s the answer is 202 with what is pending and no effective
// time; once those requests end the change has taken effect, after the
// change, and a POST that waits for it answers 200.
func TestKnobsPending(t *testing.T) {
	s, st, pub, adm := newInstrumentsTest(t, Options{Workers: 4, Queue: 10, QueueTimeout: time.Minute})
	st.SQLGate = make(chan struct{})
	done := make(chan int, 4)
	for range 4 {
		go func() {
			resp, err := http.Get(pub.URL + "/bbs?cmd=AllView&format=json")
			if err != nil {
				done <- 0
				return
			}
			resp.Body.Close()
			done <- resp.StatusCode
		}()
	}
	waitUntil(t, "4 requests in SQL", func() bool { return st.InSQL.Load() == 4 })
	code, k, body := postKnobs(t, adm.URL, "workers=2&wait=0s")
	if code != 202 || k.EffectiveAt != nil || len(k.Pending) != 1 || !strings.Contains(k.Pending[0], "2 requests hold a worker above the limit of 2") {
		t.Fatalf("POST workers=2 with 4 running: %d %s; want 202 pending on 2 workers above the limit", code, body)
	}
	if w := adminStatsOf(t, adm.URL).Workers; w.Size != 2 || w.Busy != 4 {
		t.Errorf("workers while draining: %+v; want size 2, 4 busy (none stopped)", w)
	}
	waited := make(chan KnobStats)
	go func() {
		_, k, _ := postKnobs(t, adm.URL, "queue=20&wait=10s")
		waited <- k
	}()
	time.Sleep(20 * time.Millisecond)
	for range 4 {
		st.SQLGate <- struct{}{}
	}
	for range 4 {
		if c := <-done; c != 200 {
			t.Errorf("a request running while the limit shrank: %d; want 200", c)
		}
	}
	k = <-waited
	if len(k.Pending) != 0 || k.EffectiveAt == nil || k.EffectiveAt.Before(*k.ChangedAt) || k.Queue != 20 || k.Workers != 2 {
		t.Errorf("POST that waited for the drain: %+v; want nothing pending, effective after the change", k)
	}
	// A worker is given back after its answer is written: the client may
	// read the answer first.
	waitUntil(t, "every worker given back after the drain", func() bool { return s.limit.stats().Busy == 0 })
	if got := s.limit.stats(); got.Busy != 0 || got.Rejected != 0 {
		t.Errorf("after the drain: %+v; want none busy, none rejected", got)
	}
}

// TestKnobsGuarded checks that /admin/knobs is behind the admin token and
// refuses a browser's cross-site POST, changing nothing either way.
func TestKnobsGuarded(t *testing.T) {
	s := New(Options{Store: fake.New(10), Workers: 4, Queue: 4, AdminToken: "s3cret"})
	adm := httptest.NewServer(s.AdminHandler())
	defer adm.Close()
	if code, _, body := postKnobs(t, adm.URL, "workers=2"); code != 401 {
		t.Errorf("POST without the token: %d %s; want 401", code, body)
	}
	if code, _, body := postKnobs(t, adm.URL, "workers=2", "Authorization", "Bearer wrong"); code != 401 {
		t.Errorf("POST with a wrong token: %d %s; want 401", code, body)
	}
	if resp, _ := get(t, adm.URL+"/admin/knobs"); resp.StatusCode != 401 {
		t.Errorf("GET without the token: %d; want 401", resp.StatusCode)
	}
	if code, _, body := postKnobs(t, adm.URL, "workers=2", "Authorization", "Bearer s3cret", "Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site"); code != 403 {
		t.Errorf("cross-site POST with the token: %d %s; want 403", code, body)
	}
	if k := s.knobStats(); k.Workers != 4 || k.Changes != 0 {
		t.Fatalf("after refused POSTs: %+v; want workers 4, no change", k)
	}
	if code, k, body := postKnobs(t, adm.URL, "workers=2", "Authorization", "Bearer s3cret"); code != 200 || k.Workers != 2 {
		t.Errorf("POST with the token: %d %s; want 200, workers 2", code, body)
	}
}

// TestKnobsBounds sends each knob of knob.Board that /admin/knobs takes
// just outside each of its live bounds: 400, naming the knob, the bounds
// and the unit; at the bounds parseKnobs takes it. GET names every one.
func TestKnobsBounds(t *testing.T) {
	_, _, _, adm := newInstrumentsTest(t, Options{Workers: 4, Queue: 10, QueueTimeout: time.Second})
	for _, d := range knob.Board {
		if !d.Live {
			continue
		}
		lo, below := max(d.Min, d.LiveMin), max(d.Min, d.LiveMin)-1
		if d.Open {
			lo, below = d.Min+1, d.Min
		}
		for _, c := range []struct{ ok, bad int64 }{{lo, below}, {d.Max, d.Max + 1}} {
			code, _, body := postKnobs(t, adm.URL, d.Key+"="+d.Format(c.bad))
			want := []string{fmt.Sprintf("%s = %q: must be ", d.Key, d.Format(c.bad)), d.Format(max(d.Min, d.LiveMin)), d.Format(d.Max), d.Unit, "nothing changed"}
			for _, w := range want {
				if code != 400 || !strings.Contains(body, w) {
					t.Errorf("POST %s=%s: %d %s; want 400 saying %q", d.Key, d.Format(c.bad), code, body, w)
				}
			}
			if _, problems := parseKnobs(knob.Board, url.Values{d.Key: {d.Format(c.ok)}}); len(problems) > 0 {
				t.Errorf("%s = %s: %v; want it taken", d.Key, d.Format(c.ok), problems)
			}
		}
	}
	_, body := get(t, adm.URL+"/admin/knobs")
	for _, key := range liveKeys(knob.Board) {
		if !strings.Contains(body, `"`+key+`":`) {
			t.Errorf("GET /admin/knobs = %s; want %s in it", body, key)
		}
	}
}

// TestKnobsDeclared adds a made-up live knob to the table: /admin/knobs's
// parsing takes it within its bounds, refuses it outside naming them, and
// names it among the keys it takes.
func TestKnobsDeclared(t *testing.T) {
	table := append(slices.Clone(knob.Board), knob.Decl{Key: "made_up", Min: 2, Max: 9, Unit: "widgets", Live: true, Help: "a knob of the test"})
	if ch, problems := parseKnobs(table, url.Values{"made_up": {"5"}}); len(problems) > 0 || ch.v["made_up"] != 5 {
		t.Errorf("made_up=5: %v, %v; want 5 taken", ch.v, problems)
	}
	for q, want := range map[string]string{
		"made_up=10": `made_up = "10": must be 2..9 widgets`,
		"made_up=1":  `made_up = "1": must be 2..9 widgets`,
		"madeup=3":   "want workers, queue, queue_timeout, pool, pool_min, made_up, wait",
		"wait=1s":    "give at least one of workers, queue, queue_timeout, pool, pool_min, made_up",
	} {
		f, _ := url.ParseQuery(q)
		if _, problems := parseKnobs(table, f); len(problems) != 1 || !strings.Contains(problems[0], want) {
			t.Errorf("%s: %v; want %q", q, problems, want)
		}
	}
}
