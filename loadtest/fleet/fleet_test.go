//go:build unix

package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"bbslab/internal/child"
	"bbslab/internal/cli"
	"bbslab/internal/testenv"
	"bbslab/loadtest"
)

var (
	boardOnce sync.Once
	boardErr  error
)

// board builds the board once for the package's tests.
func board(t *testing.T) string {
	t.Helper()
	boardOnce.Do(func() {
		dir, err := osMkdirTemp()
		if err != nil {
			boardErr = err
			return
		}
		boardBin = filepath.Join(dir, "bbs")
		if out, err := exec.Command("go", "build", "-o", boardBin, "bbslab/cmd/bbs").CombinedOutput(); err != nil {
			boardErr = fmt.Errorf("go build bbs: %v\n%s", err, out)
		}
	})
	if boardErr != nil {
		t.Fatal(boardErr)
	}
	return boardBin
}

// need skips the test (fails it under CI=true) unless PostgreSQL and the
// named programs are there; it returns the admin DSN.
func need(t *testing.T, programs ...string) string {
	t.Helper()
	dsn := testenv.PostgresDSN(t)
	for _, p := range programs {
		_, err := Binary(p)
		testenv.Need(t, err == nil, fmt.Sprint(err))
	}
	return dsn
}

// boardSpec is a fleet of the board: pool connections each, pgx's exec
// mode, the database URL in BBS_DSN.
func boardSpec(t *testing.T, admin string, replicas, pool int) Spec {
	return Spec{
		Replica: []string{board(t), "-db", "postgres", "-addr", "127.0.0.1:{{port}}", "-admin-addr", "127.0.0.1:{{admin_port}}",
			"-pool", fmt.Sprint(pool), "-seed-posts", "200", "-pg-exec-mode", "exec", "-workers", "8"},
		DSNEnv:   "BBS_DSN",
		Replicas: replicas, Ready: "/readyz", Balance: "roundrobin",
		AdminDSN: admin, WorkDir: t.TempDir(),
		StartTimeout: 60 * time.Second, StopTimeout: 10 * time.Second,
	}
}

// TestFleetCounts is issue 32's done-when: two replicas behind HAProxy,
// straight to PostgreSQL and through PgBouncer in transaction mode,
// loaded for a second by the engine: the replicas' request counts
// add up to the tool's and to HAProxy's, each replica's to HAProxy's
// count of it, with no error anywhere; and after Stop nothing is left:
// no process, no role, no database.
func TestFleetCounts(t *testing.T) {
	admin := need(t, "haproxy", "pgbouncer")
	for _, tt := range []struct {
		name string
		pgb  *PgBouncerSpec
	}{
		{"direct", nil},
		// PgBouncer held to CPU 0 on its own (the replicas and HAProxy
		// not pinned), as beside the database on one machine.
		{"pgbouncer-transaction", &PgBouncerSpec{Mode: ModeTransaction, PoolSize: 2, CPUs: []int{0}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := boardSpec(t, admin, 2, 3)
			s.PgBouncer, s.Pin = tt.pgb, true
			s.ConnLimit = 8
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			f, err := Start(ctx, s)
			if err != nil {
				t.Fatalf("Start: %v", err)
			}
			stopped := false
			defer func() {
				if !stopped {
					f.Stop()
				}
			}()
			res := load(t, f.URL+"/bbs?cmd=AllView&n=10", time.Second)
			checkCounts(t, ctx, f, res)
			if tt.pgb != nil {
				// PgBouncer held PostgreSQL to its pool: 2 server
				// connections for the replicas' 2 x 3.
				if n := backends(t, admin, f.Role.Name); n > tt.pgb.PoolSize {
					t.Errorf("PostgreSQL has %d connections of the fleet's role; want at most PgBouncer's pool, %d", n, tt.pgb.PoolSize)
				}
				checkPools(t, ctx, f)
				checkHeld(t, f.PgBouncer.Pid, "0")
				if own := heldTo(t, os.Getpid()); own != "0" {
					checkHeld(t, f.Replicas[0].Pid, own) // not pinned: this test's CPUs
				}
			}
			procs := f.procs
			stopped = true
			if err := f.Stop(); err != nil {
				t.Errorf("Stop: %v", err)
			}
			checkNothingLeft(t, admin, f.Role.Name, procs)
		})
	}
}

// load runs the engine against url for d: 6 clients, no think time.
func load(t *testing.T, url string, d time.Duration) *loadtest.Result {
	t.Helper()
	s := loadtest.Settings{Requests: []loadtest.Request{{URL: url, Label: "page"}}, Clients: 6, Duration: d, Seed: 1}
	cli.FillDefaults(&s)
	res, err := loadtest.Run(context.Background(), s)
	if err != nil {
		t.Fatalf("load %s: %v", url, err)
	}
	return res
}

// checkCounts compares the tool's, the replicas' and HAProxy's counts.
func checkCounts(t *testing.T, ctx context.Context, f *Fleet, res *loadtest.Result) {
	t.Helper()
	tool := res.Total.Requests
	if res.Total.Errors != 0 || tool == 0 {
		t.Errorf("the tool counted %d requests, %d errors (%v); want some and no error", tool, res.Total.Errors, res.Total.ErrorKinds)
	}
	ss, err := Scrape(ctx, f.MetricsURL)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, r := range f.Replicas {
		n, errs := replicaCount(t, ctx, r)
		sum += n
		proxied := Sum(ss, "haproxy_server_http_responses_total", map[string]string{"proxy": "boards", "server": r.Name})
		ok2xx := Sum(ss, "haproxy_server_http_responses_total", map[string]string{"proxy": "boards", "server": r.Name, "code": "2xx"})
		t.Logf("%s: %d requests (%d errors); HAProxy sent it %v, %v answered 2xx", r.Name, n, errs, proxied, ok2xx)
		if n == 0 || errs != 0 {
			t.Errorf("%s served %d requests with %d errors; want some, without error (both replicas balanced)", r.Name, n, errs)
		}
		if float64(n) != proxied || ok2xx != proxied {
			t.Errorf("%s counted %d requests; HAProxy's exporter: %v responses from it, %v of them 2xx; want all equal", r.Name, n, proxied, ok2xx)
		}
	}
	front := Sum(ss, "haproxy_frontend_http_requests_total", map[string]string{"proxy": "board"})
	t.Logf("tool %d, replicas' sum %d, HAProxy's frontend %v", tool, sum, front)
	if sum != tool || float64(tool) != front {
		t.Errorf("requests: the tool counted %d, the replicas %d, HAProxy's frontend %v; want one number", tool, sum, front)
	}
	if errs := f.Exits(); len(errs) > 0 {
		t.Errorf("processes exited during the load: %v", errors.Join(errs...))
	}
}

// replicaCount reads a replica's /admin/stats: its requests and errors
// over every command.
func replicaCount(t *testing.T, ctx context.Context, r Replica) (requests, errs int64) {
	t.Helper()
	b, err := Get(ctx, httpClient, r.AdminURL+"/admin/stats", "", 32<<20)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Commands map[string]struct {
			Requests int64 `json:"requests"`
			Errors   int64 `json:"errors"`
		} `json:"commands"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatalf("%s /admin/stats: %v", r.Name, err)
	}
	for _, c := range st.Commands {
		requests += c.Requests
		errs += c.Errors
	}
	return requests, errs
}

// backends counts PostgreSQL's connections of role.
func backends(t *testing.T, admin, role string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var n int
	if err := c.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE usename = $1`, role).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// checkNothingLeft checks that every process has exited and that neither
// the role nor its database is left on the server.
func checkNothingLeft(t *testing.T, admin, role string, procs []*proc) {
	t.Helper()
	for _, p := range procs {
		select {
		case <-p.Exited():
		default:
			t.Errorf("%s (pid %d) still runs after Stop", p.name, p.Pid())
		}
		if err := syscall.Kill(p.Pid(), 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("%s (pid %d): kill -0 = %v; want no such process", p.name, p.Pid(), err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	left, err := Leftovers(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range left {
		if strings.HasSuffix(l, " "+role) {
			t.Errorf("left behind on PostgreSQL: %s", l)
		}
	}
}

// TestReplicaExitReported kills a replica while the fleet runs: the fleet
// reports it at once (OnExit), in Exits, and in Stop's error.
func TestReplicaExitReported(t *testing.T) {
	admin := need(t, "haproxy")
	s := boardSpec(t, admin, 2, 2)
	reported := make(chan error, 4)
	s.OnExit = func(err error) { reported <- err }
	f, err := Start(context.Background(), s)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer f.Stop()
	if err := syscall.Kill(f.Replicas[1].Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-reported:
		if !strings.Contains(err.Error(), "replica 2") || !strings.Contains(err.Error(), "killed") {
			t.Errorf("OnExit(%v); want replica 2, killed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no OnExit 10 s after replica 2 was killed")
	}
	if errs := f.Exits(); len(errs) != 1 {
		t.Errorf("Exits() = %v; want replica 2's alone", errs)
	}
	procs := f.procs
	if err := f.Stop(); err == nil || !strings.Contains(err.Error(), "replica 2") {
		t.Errorf("Stop() = %v; want replica 2's exit reported", err)
	}
	checkNothingLeft(t, admin, f.Role.Name, procs)
}

// TestConnectionLimit is the lesson of replicas x pool against a limit the
// lab owns: a role of CONNECTION LIMIT 4, replicas of pool 3: the second
// replica cannot open its pool, and the fleet says which and why.
func TestConnectionLimit(t *testing.T) {
	admin := need(t)
	s := boardSpec(t, admin, 2, 3)
	s.ConnLimit = 4
	s.Balance = "leastconn"
	f, err := Start(context.Background(), s)
	if err == nil {
		f.Stop()
		t.Fatal("Start succeeded: 2 replicas of pool 3 under CONNECTION LIMIT 4")
	}
	for _, want := range []string{"replica 2", "too many connections for role"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Start: %v\nwant %q in it", err, want)
		}
	}
	// The server answered: the board does not tell how to start one.
	if strings.Contains(err.Error(), "Start one") {
		t.Errorf("the refused replica's log has the hint on starting PostgreSQL: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	left, lerr := Leftovers(ctx, admin)
	if lerr != nil {
		t.Fatal(lerr)
	}
	if role := roleIn(err.Error()); role == "" || slices.ContainsFunc(left, func(l string) bool { return strings.HasSuffix(l, " "+role) }) {
		t.Errorf("role %q of the failed start: leftovers %v", role, left)
	}
}

// roleIn finds the fleet's role named in msg.
func roleIn(msg string) string {
	i := strings.Index(msg, RolePrefix)
	if i < 0 {
		return ""
	}
	j := i + len(RolePrefix)
	for j < len(msg) && strings.ContainsRune("0123456789abcdef", rune(msg[j])) {
		j++
	}
	return msg[i:j]
}

// checkPools reads PgBouncer's admin console as its stats user: SHOW
// POOLS has the fleet's database in transaction mode.
func checkPools(t *testing.T, ctx context.Context, f *Fleet) {
	t.Helper()
	c, err := pgx.Connect(ctx, f.PgBouncer.AdminDSN)
	if err != nil {
		t.Fatalf("PgBouncer's admin console: %v", err)
	}
	defer c.Close(ctx)
	rows, err := c.Query(ctx, "SHOW POOLS")
	if err != nil {
		t.Fatalf("SHOW POOLS: %v", err)
	}
	maps, err := pgx.CollectRows(rows, pgx.RowToMap)
	if err != nil {
		t.Fatalf("SHOW POOLS: %v", err)
	}
	for _, m := range maps {
		if m["database"] == f.Role.Name {
			if m["user"] != f.Role.Name || m["pool_mode"] != ModeTransaction {
				t.Errorf("SHOW POOLS: %v; want user %s in transaction mode", m, f.Role.Name)
			}
			return
		}
	}
	t.Errorf("SHOW POOLS has no pool of database %s: %v", f.Role.Name, maps)
}

// checkHeld checks the CPUs process pid may run on (Linux's
// Cpus_allowed_list), where the system can pin.
func checkHeld(t *testing.T, pid int, want string) {
	t.Helper()
	if child.CanPin(0) != nil {
		t.Logf("CPUs of process %d not checked: the system cannot pin", pid)
		return
	}
	if got := heldTo(t, pid); got != want {
		t.Errorf("process %d may run on CPUs %s; want %s", pid, got, want)
	}
}

// heldTo returns the CPUs process pid may run on, as Linux lists them
// (Cpus_allowed_list); "" where /proc has no such list.
func heldTo(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
