package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"bbslab/internal/testenv"
	"bbslab/loadtest/fleet"
)

func TestFleetFlags(t *testing.T) {
	var out, errs bytes.Buffer
	err := run(context.Background(), []string{"fleet", "-pgbouncer", "statement", "--", "x"}, &out, &errs)
	if err == nil || !strings.Contains(err.Error(), "off, session or transaction") {
		t.Errorf("fleet -pgbouncer statement: %v; want a usage error naming the modes", err)
	}
	err = run(context.Background(), []string{"fleet", "-pgbouncer", "transaction", "-pgbouncer-cpus", "0,x", "--", "x"}, &out, &errs)
	if err == nil || !strings.Contains(err.Error(), `-pgbouncer-cpus "0,x": want comma-separated CPU numbers`) {
		t.Errorf("fleet -pgbouncer-cpus 0,x: %v; want a usage error", err)
	}
}

// TestFleetCommand runs "loadtest fleet" with one replica of the board
// behind HAProxy for a second: it prints the addresses and stops cleanly,
// dropping its role (the fleet's own tests load it: loadtest/fleet).
func TestFleetCommand(t *testing.T) {
	dsn := testenv.PostgresDSN(t)
	_, err := fleet.Binary("haproxy")
	testenv.Need(t, err == nil, errText(err))
	var out, errs bytes.Buffer
	err = run(context.Background(), []string{"fleet", "-replicas", "1", "-postgres", dsn, "-conn-limit", "3", "-for", "1s", "--",
		boardBinary(t), "-db", "postgres", "-pool", "2", "-addr", "127.0.0.1:{{port}}", "-admin-addr", "127.0.0.1:{{admin_port}}"}, &out, &errs)
	if err != nil {
		t.Fatalf("loadtest fleet: %v\n%s\n%s", err, out.String(), errs.String())
	}
	for _, want := range []string{"one address (HAProxy): http://127.0.0.1:", "replica r1:", "CONNECTION LIMIT 3", "stopped; role and database"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("loadtest fleet printed:\n%s\nwant %q", out.String(), want)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestExperimentFleet runs an experiment whose runs are fleets: 2
// replicas of the board behind HAProxy, straight to PostgreSQL and through
// PgBouncer in transaction mode; each run is loaded through HAProxy, its
// result says what its fleet was, its readings are the whole fleet's (the
// replicas' requests adding up to the sum the tool served, the proxy's,
// the pooler's where there is one, the database's), and no role is left.
func TestExperimentFleet(t *testing.T) {
	dsn := testenv.PostgresDSN(t)
	for _, p := range []string{"haproxy", "pgbouncer"} {
		_, err := fleet.Binary(p)
		testenv.Need(t, err == nil, errText(err))
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "fleet.toml")
	text := fmt.Sprintf(`name = "fleet"
[server]
command = [%q, "-db", "postgres", "-addr", "127.0.0.1:{{port}}", "-admin-addr", "127.0.0.1:{{admin_port}}", "-pool", "2", "-seed-posts", "50", "-pg-exec-mode", "exec"]
ready = "http://127.0.0.1:{{admin_port}}/readyz"
reset = "http://127.0.0.1:{{admin_port}}/admin/reset?posts=50"
[fleet]
replicas = 2
conn_limit = 10
admin_dsn = %q
ready = "/readyz"
dsn_env = "BBS_DSN"
[stats]
url = "http://127.0.0.1:{{admin_port}}/admin/stats"
[disturbance]
off = true
[load]
clients = [4]
# Two seconds: the fleet's counters need two reads in the window, and
# one read of every replica, HAProxy, PgBouncer and PostgreSQL may take
# most of a second on a busy machine.
duration = "2s"
[[load.request]]
label = "page"
url = "http://127.0.0.1:{{port}}/bbs?cmd=AllView"
expect = 200
[[run]]
name = "direct"
[[run]]
name = "pgbouncer"
fleet = { pgbouncer = "transaction", pgbouncer_pool = 2 }
[[claim]]
id = "both-serve"
source = "this test"
text = "both fleets serve pages without error"
[[claim.check]]
left = { run = "direct", clients = 4, metric = "throughput" }
op = ">"
right = { value = 0 }
[[claim.check]]
left = { run = "pgbouncer", clients = 4, metric = "errors" }
op = "not_above"
right = { value = 0 }
`, boardBinary(t), dsn)
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	code, stdout, stderr := runCmd(ctx, "experiment", "-live", "off", "-out", out, file)
	if code != 0 {
		t.Fatalf("experiment = exit %d; stderr %s\n%s", code, stderr, stdout)
	}
	if !strings.Contains(stdout, "claim both-serve: REPRODUCED") {
		t.Errorf("stdout lacks the claim reproduced:\n%s", stdout)
	}
	b, err := os.ReadFile(filepath.Join(out, "experiment.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Runs []struct {
			Name  string
			Fleet struct {
				Replicas  []struct{ Name string }
				PgBouncer string `json:"pgbouncer"`
				ConnLimit int    `json:"conn_limit"`
				Exits     []string
			}
			Points []struct {
				Result struct {
					Total struct {
						Requests, Errors int64
						Throughput       float64
					}
				}
				Server map[string]float64
			}
		}
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 2 {
		t.Fatalf("%d runs; want 2", len(res.Runs))
	}
	for i, want := range []string{"", "transaction"} {
		r := res.Runs[i]
		if len(r.Fleet.Replicas) != 2 || r.Fleet.PgBouncer != want || r.Fleet.ConnLimit != 10 || len(r.Fleet.Exits) > 0 {
			t.Errorf("run %s: fleet %+v; want 2 replicas, pgbouncer %q, conn_limit 10, no exits", r.Name, r.Fleet, want)
		}
		if len(r.Points) != 1 || r.Points[0].Result.Total.Requests == 0 || r.Points[0].Result.Total.Errors != 0 {
			t.Errorf("run %s: points %+v; want one with requests and no error", r.Name, r.Points)
			continue
		}
		checkFleetReadings(t, r.Name, r.Points[0].Server, r.Points[0].Result.Total.Throughput, want != "")
	}
	// The roles the log names are gone, with their databases.
	roles := regexp.MustCompile(fleet.RolePrefix+`[0-9a-f]+`).FindAllString(stdout, -1)
	if len(roles) < 2 {
		t.Errorf("the log names %d fleet roles; want one per run:\n%s", len(roles), stdout)
	}
	lctx, lcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer lcancel()
	left, err := fleet.Leftovers(lctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range left {
		for _, r := range roles {
			if strings.HasSuffix(l, " "+r) {
				t.Errorf("left behind: %s", l)
			}
		}
	}
}

// checkFleetReadings checks a fleet run's readings: each replica served
// and their requests a second add up to the sum's, which is near the
// tool's throughput (the same requests, over nearly the same second); the
// board's own readings, the proxy's and the database's are there, and
// the pooler's when the run had one.
func checkFleetReadings(t *testing.T, run string, server map[string]float64, throughput float64, pooled bool) {
	t.Helper()
	r1, r2, sum := server["requests_r1"], server["requests_r2"], server["requests"]
	if r1 <= 0 || r2 <= 0 || math.Abs(r1+r2-sum) > 1e-6*sum {
		t.Errorf("run %s: requests/s r1 %v + r2 %v, sum %v; want both serving, adding up", run, r1, r2, sum)
	}
	if sum < throughput/2 || sum > 2*throughput {
		t.Errorf("run %s: the replicas served %.1f/s in all, the tool %.1f/s; want the same requests", run, sum, throughput)
	}
	for _, name := range []string{"server_cpu", "workers_busy", "server_interference", "proxy_queue", "proxy_requests", "db_backends", "db_opened"} {
		if _, ok := server[name]; !ok {
			t.Errorf("run %s: no reading %s among %v", run, name, slices.Sorted(maps.Keys(server)))
		}
	}
	if _, ok := server["pooler_waiting"]; ok != pooled {
		t.Errorf("run %s: a reading of PgBouncer's clients waiting: %v; want %v", run, ok, pooled)
	}
}
