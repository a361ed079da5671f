package contract_test

import (
	"context"
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
	"bbslab/internal/cli"
	"bbslab/loadtest/calibrate"
	"bbslab/loadtest/contract"
	"bbslab/machine"
)

// spec is a short calibration of the page at page: one correction after
// the probe with no wait, probes of 2s.
func spec(t *testing.T, page string) calibrate.Spec {
	t.Helper()
	s := contract.CalibrationSpec()
	s.Run, s.Clients, s.Target, s.Tolerance, s.Ratio, s.Probes = page, 5, 60, 5, 7.33, 1
	s.Warmup, s.Duration = cli.Duration(500*time.Millisecond), cli.Duration(2*time.Second)
	if errs := s.Check(func(k string) string { return k }); len(errs) > 0 {
		t.Fatalf("Check: %v", errs)
	}
	return s
}

// lines collects what a calibration logs.
type lines []string

func (l *lines) logf(format string, a ...any) { *l = append(*l, fmt.Sprintf(format, a...)) }

// TestCalibrateBoardNeedsTheBoard checks the errors before any load:
// nothing listening at the admin URL, a server there without
// /admin/distance or with something else at that path, and a page that
// does not answer 200.
func TestCalibrateBoardNeedsTheBoard(t *testing.T) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	t.Cleanup(page.Close)
	notFound := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notFound.Close)
	noPage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == contract.DistancePath {
			w.Write([]byte(`{"db_latency":"0s"}`))
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(noPage.Close)
	// The closed server's port is taken last: a port closed before the
	// others listened was once handed to noPage, and the calibration went
	// on against it (CI, 2026-12-02 11:35).
	closed := httptest.NewServer(nil)
	closed.Close()
	for _, tt := range []struct {
		admin, page string
		want        []string
	}{
		{closed.URL, page.URL, []string{"-admin " + closed.URL, "does not answer", "is the board running"}},
		{notFound.URL, page.URL, []string{"no /admin/distance"}},
		{page.URL, page.URL, []string{"holds no db_latency"}},
		{noPage.URL, noPage.URL + "/bbs", []string{"-url " + noPage.URL + "/bbs", "404"}},
	} {
		var l lines
		cal, err := contract.CalibrateBoard(context.Background(), spec(t, tt.page), tt.admin, l.logf)
		for _, w := range tt.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("CalibrateBoard(admin %s, page %s) = %v, %v; want an error saying %q", tt.admin, tt.page, cal, err, w)
			}
		}
		if len(l) > 0 {
			t.Errorf("CalibrateBoard(admin %s) logged %q before failing; want nothing: no load ran", tt.admin, l)
		}
	}
}

// TestCalibrateBoardOnTheRealBoard calibrates the real board handler (5
// clients, short probes) and checks that the board keeps the wait chosen
// and logged. The figures depend on the machine and are not checked.
func TestCalibrateBoardOnTheRealBoard(t *testing.T) {
	ctx := context.Background()
	st, err := open.Store(ctx, entity.Options{Driver: "sqlite", DSN: filepath.Join(t.TempDir(), "bbs.db"), Pool: 5,
		Distance: entity.Distance{Adjustable: true}})
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

	var l lines
	cal, err := contract.CalibrateBoard(ctx, spec(t, pub.URL+"/bbs?cmd=AllView"), adm.URL+"/", l.logf)
	if err != nil {
		t.Fatalf("CalibrateBoard = %v\n%s", err, strings.Join(l, "\n"))
	}
	chosen, perr := time.ParseDuration(cal.Value)
	if perr != nil || chosen <= 0 || cal.Var != contract.DistanceVar {
		t.Errorf("chose %s = %q (%v); want a positive db_latency", cal.Var, cal.Value, perr)
	}
	if d, err := contract.Distance(ctx, adm.URL); err != nil || d != chosen {
		t.Errorf("the board's wait after calibrating = %v, %v; want the chosen %v", d, err, cal.Value)
	}
	out := strings.Join(l, "\n")
	for _, want := range []string{
		fmt.Sprintf("chosen: db_latency = %s ", cal.Value),
		fmt.Sprintf("the board keeps running with db_latency = %s (it had 0s)", cal.Value),
		adm.URL + "/admin/distance?db_latency=0s",
		"go run ./cmd/bbs -db-latency " + cal.Value,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the log lacks %q:\n%s", want, out)
		}
	}
}
