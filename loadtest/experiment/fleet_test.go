package experiment

import (
	"reflect"
	"strings"
	"testing"
)

const fleetBase = `name = "x"
[server]
command = ["server"]
ready = "http://127.0.0.1:{{admin_port}}/readyz"
[fleet]
replicas = 2
conn_limit = 12
admin_dsn = "postgres://root@127.0.0.1:5432/test"
ready = "/readyz"
[load]
clients = [1, 2]
duration = "1s"
[[load.request]]
url = "http://127.0.0.1:{{port}}/"
[[run]]
name = "a"
[[run]]
name = "b"
fleet = { replicas = 4, pgbouncer = "transaction", pgbouncer_pool = 6, conn_limit = -1, pgbouncer_cpus = [1] }
[[run]]
name = "c"
fleet = { replicas = 1, balance = "roundrobin" }
`

// TestFleetOf checks that a run's [run.fleet] keys replace the file's
// [fleet] and that the defaults are filled in.
func TestFleetOf(t *testing.T) {
	e, err := parse("fleet.toml", []byte(fleetBase))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]fleetSpec{
		"a": {Replicas: 2, Balance: "leastconn", PgBouncer: "off", PgBouncerPool: 10, ConnLimit: 12},
		"b": {Replicas: 4, Balance: "leastconn", PgBouncer: "transaction", PgBouncerPool: 6, ConnLimit: -1, PgBouncerCPUs: []int{1}},
		"c": {Replicas: 1, Balance: "roundrobin", PgBouncer: "off", PgBouncerPool: 10, ConnLimit: 12},
	}
	for _, r := range e.Runs {
		fs, ok := e.fleetOf(r)
		fs.AdminDSN, fs.Ready = "", ""
		if !ok || !reflect.DeepEqual(fs, want[r.Name]) {
			t.Errorf("run %s: fleet %+v (%v); want %+v", r.Name, fs, ok, want[r.Name])
		}
	}
	// Without [fleet] replicas, no run is a fleet.
	e, err = parse("plain.toml", []byte(strings.Replace(fleetBase, "replicas = 2\n", "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := e.fleetOf(e.Runs[0]); ok {
		t.Error("run a without replicas is a fleet")
	}
}

func TestFleetErrors(t *testing.T) {
	for _, tt := range []struct{ old, new, want string }{
		{`replicas = 2`, `replicas = 65`, "fleet.replicas = 65"},
		{`conn_limit = 12`, "conn_limit = 12\nbalance = \"random\"", `fleet.balance = "random"`},
		{`balance = "roundrobin"`, `pgbouncer = "statement"`, `run "c": fleet.pgbouncer = "statement"`},
		{`conn_limit = 12`, `conn_limit = -2`, "conn_limit -1 (none) or more"},
		{`pgbouncer_cpus = [1]`, `pgbouncer_cpus = [-1]`, `run "b": fleet.pgbouncer_cpus: -1: want a CPU number`},
		{`ready = "/readyz"`, ``, "admin_dsn (the database server's admin DSN) and ready"},
		{`conn_limit = 12`, "conn_limit = 12\nmax_conn = 3", `unknown key "fleet.max_conn"`},
		{"[load]", "[stats]\nurl = \"http://127.0.0.1:{{admin_port}}/metrics\"\nformat = \"prometheus\"\n[load]", `stats.format = "prometheus": a fleet's stats`},
		{"[load]", "[stats]\nurl = \"u\"\n[[stats.reading]]\nname = \"busy\"\nmetric = \"busy_total\"\n[load]", `stats.reading "busy": a fleet's stats are read from JSON`},
	} {
		_, err := parse("x.toml", []byte(strings.Replace(fleetBase, tt.old, tt.new, 1)))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q -> %q: %v; want an error with %q", tt.old, tt.new, err, tt.want)
		}
	}
}
