package fleetwatch_test

import (
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"bbslab/internal/testenv"
	"bbslab/loadtest"
	"bbslab/loadtest/contract"
	"bbslab/loadtest/fleetwatch"
	"bbslab/loadtest/live"
	"bbslab/loadtest/live/feed"
	"bbslab/loadtest/watch"
)

// freePort returns a loopback port free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startReplica starts the board binary bin on PostgreSQL at dsn, on free
// ports, with args, and returns its public and admin base URLs once it
// serves a page.
func startReplica(t *testing.T, bin, dsn string, args ...string) (pub, adm string) {
	t.Helper()
	p, a := freePort(t), freePort(t)
	pub, adm = fmt.Sprintf("127.0.0.1:%d", p), fmt.Sprintf("http://127.0.0.1:%d", a)
	cmd := exec.Command(bin, append([]string{"-db", "postgres", "-addr", pub, "-admin-addr", fmt.Sprintf("127.0.0.1:%d", a)}, args...)...)
	cmd.Env = append(os.Environ(), "BBS_DSN="+dsn)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("replica %s:\n%s", pub, out.String())
		}
	})
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get("http://" + pub + "/bbs?cmd=AllView")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return pub, adm
			}
		}
		if time.Now().After(end) {
			t.Fatalf("replica %s did not serve a page in 30 s:\n%s", pub, out.String())
		}
	}
}

// demoRole makes a role of the test's own, with a connection limit and
// a database it owns, dropped when the test ends.
func demoRole(t *testing.T, dsn string, limit int) string {
	t.Helper()
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	name := "fleetwatch_dash_" + strconv.FormatInt(time.Now().UnixNano()%1e9, 10)
	for _, q := range []string{fmt.Sprintf("CREATE ROLE %s LOGIN CONNECTION LIMIT %d", name, limit), "CREATE DATABASE " + name + " OWNER " + name} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		defer admin.Close(ctx)
		for _, q := range []string{"DROP DATABASE IF EXISTS " + name + " WITH (FORCE)", "DROP ROLE IF EXISTS " + name} {
			if _, err := admin.Exec(ctx, q); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
	})
	return name
}

// TestFleetDashboard loads two real boards (cmd/bbs, a new connection
// per acquire: pool mode none) behind a real HAProxy, through a real
// PgBouncer in session mode with a pool of 4 on a role of its own (limit
// 8), for 8 s with 24 clients, and feeds the live dashboard from the
// fleet's watcher. Each second's frame carries each replica's requests
// per second and their sum, which add up, and the proxy's, the pooler's
// and the database's panels. With BBS_FLEET_DASHBOARD set it writes the
// page there (docs/images/dashboard-replicas.png is its screenshot).
func TestFleetDashboard(t *testing.T) {
	if testing.Short() {
		t.Skip("a 10 s load of two boards")
	}
	dsn := testenv.PostgresDSN(t)
	_, err := exec.LookPath("haproxy")
	testenv.Need(t, err == nil, "haproxy is not installed")
	dir := t.TempDir()
	bin := filepath.Join(dir, "bbs")
	if out, err := exec.Command("go", "build", "-o", bin, "bbslab/cmd/bbs").CombinedOutput(); err != nil {
		t.Fatalf("build cmd/bbs: %v\n%s", err, out)
	}
	role := demoRole(t, dsn, 8)
	pgb := fleetwatch.StartPgBouncer(t, dsn, role, role, "session", 4)
	pooled := fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", role, pgb, role)
	p1, a1 := startReplica(t, bin, pooled, "-pool-mode", "none", "-pool", "4", "-workers", "8")
	p2, a2 := startReplica(t, bin, pooled, "-pool-mode", "none", "-pool", "4", "-workers", "8")
	front, metrics := fleetwatch.StartHAProxy(t, 8, [2]string{"r1", p1}, [2]string{"r2", p2})
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	rootUser := cfg.User
	f, err := fleetwatch.New(fleetwatch.Options{Target: contract.Board,
		Replicas:     []fleetwatch.Replica{{Name: "r1", StatsURL: a1 + contract.Board.StatsPath}, {Name: "r2", StatsURL: a2 + contract.Board.StatsPath}},
		HAProxyURL:   metrics,
		PgBouncerDSN: fmt.Sprintf("postgres://%s@127.0.0.1:%d/pgbouncer?sslmode=disable", rootUser, pgb), PgBouncerDatabase: role,
		PostgresDSN: dsn, Database: role, Role: role})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	url, err := f.Serve()
	if err != nil {
		t.Fatal(err)
	}
	hub := live.New()
	fd := feed.New(hub, "two boards behind HAProxy, through PgBouncer")
	tg := f.Target()
	w, err := tg.Watcher(watch.Options{StatsURL: url, OnRead: fd.OnRead})
	if err != nil {
		t.Fatal(err)
	}
	const clients = 24
	fd.Begin(feed.Position{Run: "EachGetView, pool none", Step: 1, Steps: 1, Clients: clients, StepSeconds: 10})
	res, err := loadtest.Run(context.Background(), loadtest.Settings{Name: "fleet", Clients: clients, Warmup: 2 * time.Second, Duration: 8 * time.Second,
		Requests: []loadtest.Request{{Label: "EachGetView", URL: front + "/bbs?cmd=EachGetView"}}, Timeout: 10 * time.Second,
		Watcher: w, Observers: []loadtest.Observer{fd.Observer()}})
	if err != nil {
		t.Fatal(err)
	}
	fd.Step(feed.StepOf("EachGetView, pool none", clients, res.Total), nil)
	if err := fd.Done(nil); err != nil {
		t.Fatal(err)
	}
	frames, err := hub.Frames()
	if err != nil {
		t.Fatal(err)
	}
	checkFrames(t, frames)
	if res.Total.Errors != 0 || res.Total.Requests == 0 {
		t.Errorf("the load: %d requests, %d errors; want some and none failed", res.Total.Requests, res.Total.Errors)
	}
	if path := os.Getenv("BBS_FLEET_DASHBOARD"); path != "" {
		out, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		if err := live.WriteReport(out, frames, "Two boards behind HAProxy, through PgBouncer"); err != nil {
			t.Fatal(err)
		}
	}
}

// checkFrames checks the seconds of a fleet's dashboard: each replica's
// requests per second add up to the sum's, and every fleet panel has its
// series in the seconds under load.
func checkFrames(t *testing.T, frames []live.Frame) {
	t.Helper()
	loaded := 0
	var served [2]float64
	for _, fr := range frames {
		if fr.Between || fr.Client.Throughput == 0 {
			continue
		}
		by := map[string]map[string]float64{}
		for _, s := range fr.Server {
			if by[s.Panel] == nil {
				by[s.Panel] = map[string]float64{}
			}
			by[s.Panel][s.Name] = s.Value
		}
		req := by[fleetwatch.PanelRequests]
		if len(req) == 0 {
			continue // the second before the watcher's second read
		}
		loaded++
		// A second may end no request of one replica (on a busy machine a
		// request can take longer than a second): the run as a whole
		// must have both serving.
		if math.Abs(req["r1"]+req["r2"]-req["sum"]) > 1e-6*max(1, req["sum"]) {
			t.Errorf("t=%.0f s: requests r1 %v + r2 %v, sum %v; want them adding up", fr.T, req["r1"], req["r2"], req["sum"])
		}
		served[0] += req["r1"]
		served[1] += req["r2"]
		for _, p := range []string{fleetwatch.PanelProxyQueue, fleetwatch.PanelProxySessions, fleetwatch.PanelPoolerClients, fleetwatch.PanelPoolerServers,
			fleetwatch.PanelDBBackends, fleetwatch.PanelDBOpened, "Each replica: " + contract.PanelWorkers} {
			if len(by[p]) == 0 {
				t.Errorf("t=%.0f s: nothing on panel %q", fr.T, p)
			}
		}
		if v, ok := by[fleetwatch.PanelDBBackends]["role's limit"]; !ok || v != 8 {
			t.Errorf("t=%.0f s: the role's limit on the PostgreSQL panel = %v (%v); want 8", fr.T, v, ok)
		}
	}
	if served[0] == 0 || served[1] == 0 {
		t.Errorf("requests per second over the run: r1 %v, r2 %v; want both serving", served[0], served[1])
	}
	if loaded < 5 {
		t.Errorf("%d seconds under load carried the fleet's requests; want at least 5 of 10", loaded)
	}
}
