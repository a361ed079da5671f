package fleetwatch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bbslab/bbs"
	"bbslab/entity"
	"bbslab/entity/open"
	"bbslab/loadtest/contract"
	"bbslab/loadtest/fleetwatch"
	"bbslab/loadtest/watch"
	"bbslab/machine"
)

// A board is one replica started in the test: the real handler on
// SQLite, its public and admin listeners.
type board struct {
	pub, adm *httptest.Server
}

func startBoard(t *testing.T) board {
	t.Helper()
	ctx := context.Background()
	st, err := open.Store(ctx, entity.Options{Driver: "sqlite", DSN: filepath.Join(t.TempDir(), "bbs.db"), Pool: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	smp := machine.NewSampler()
	smp.Sample()
	s := bbs.New(bbs.Options{Store: st, DBName: "sqlite", Machine: smp, ServerPort: ln.Addr().(*net.TCPAddr).Port})
	s.SetReady(true)
	pub := httptest.NewUnstartedServer(s.Handler())
	pub.Listener.Close()
	pub.Listener = ln
	pub.Start()
	t.Cleanup(pub.Close)
	adm := httptest.NewServer(s.AdminHandler())
	t.Cleanup(adm.Close)
	return board{pub: pub, adm: adm}
}

// TestFleetOfRealBoards runs two real boards behind a real HAProxy,
// sends 40 requests through the proxy and reads the fleet: each
// replica's requests add up to 40, as the sum's and HAProxy's count say;
// every stat of the fleet's target is in its document; a replica that
// stops answering is marked down and its counters stay in the sum.
func TestFleetOfRealBoards(t *testing.T) {
	b1, b2 := startBoard(t), startBoard(t)
	front, metrics := fleetwatch.StartHAProxy(t, 4, [2]string{"r1", b1.pub.Listener.Addr().String()}, [2]string{"r2", b2.pub.Listener.Addr().String()})
	f, err := fleetwatch.New(fleetwatch.Options{Target: contract.Board, HAProxyURL: metrics, Replicas: []fleetwatch.Replica{
		{Name: "r1", StatsURL: b1.adm.URL + contract.Board.StatsPath}, {Name: "r2", StatsURL: b2.adm.URL + contract.Board.StatsPath}}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i := range 40 {
		resp, err := http.Get(fmt.Sprintf("%s/bbs?cmd=%s", front, []string{"AllView", "OnceGetView"}[i%2]))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("request %d through HAProxy: %s", i, resp.Status)
		}
	}
	url, err := f.Serve()
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	// HAProxy counts a response when its stream ends, a moment after the
	// client has read it: read until it has the last one (or 5 s).
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(resp.Body).Decode(&doc)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := watch.LookupNumber(doc, "haproxy.backend.responses_all_total"); n >= 40 || time.Now().After(end) {
			break
		}
	}
	n1, _ := watch.LookupNumber(doc, "replicas.r1.requests_total")
	n2, _ := watch.LookupNumber(doc, "replicas.r2.requests_total")
	sum, _ := watch.LookupNumber(doc, "sum.requests_total")
	proxy, _ := watch.LookupNumber(doc, "haproxy.backend.responses_all_total")
	if n1+n2 != 40 || sum != 40 || proxy != 40 || n1 != 20 {
		t.Errorf("requests: r1 %v + r2 %v, sum %v, HAProxy %v; want 20 + 20 (round robin), 40, 40", n1, n2, sum, proxy)
	}
	if up, _ := watch.LookupNumber(doc, "fleet.up"); up != 2 {
		t.Errorf("fleet.up = %v; want 2", up)
	}
	tg := f.Target()
	panels := map[string]bool{}
	for _, s := range tg.Stats {
		if err := s.Check(); err != nil {
			t.Error(err)
		}
		_, ok := watch.LookupNumber(doc, s.Path)
		if rest, one := strings.CutPrefix(s.Path, "sum."); one && !ok {
			// A figure one board lacks too (its machine's window before
			// its second sample) is the board's, not the fleet's.
			_, one = watch.LookupNumber(doc, "replicas.r1."+rest)
			ok = !one
		}
		if !ok && !s.Optional {
			t.Errorf("stat %s: path %s is not in the fleet's document", s.Name, s.Path)
		}
		panels[s.Panel] = true
	}
	for _, p := range []string{fleetwatch.PanelRequests, "Each replica: " + contract.PanelWorkers, fleetwatch.PanelProxyQueue, fleetwatch.PanelProxySessions} {
		if !panels[p] {
			t.Errorf("no stat on panel %q", p)
		}
	}
	if _, err := watch.New(watch.Options{StatsURL: url, Stats: tg.Stats, States: tg.States}); err != nil {
		t.Errorf("a watcher of the fleet's target: %v", err)
	}
	b2.adm.Close()
	d := f.Read(context.Background())
	if up, _ := watch.LookupNumber(d, "fleet.up"); up != 1 {
		t.Errorf("with r2's stats gone, fleet.up = %v; want 1 (sources %v)", up, d["sources"])
	}
	if v, _ := watch.LookupNumber(d, "replicas.r2.up"); v != 0 {
		t.Errorf("replicas.r2.up = %v; want 0", v)
	}
	if v, _ := watch.LookupNumber(d, "sum.requests_total"); v != 40 {
		t.Errorf("sum.requests_total with r2 down = %v; want 40 (its last read kept)", v)
	}
}
