package fleetwatch

import (
	"math"
	"os"
	"strings"
	"testing"
)

// readTable reads psql's unaligned output (-A -F'|' -P footer=off) of a
// SHOW command, as captured in testdata: a header line and rows.
func readTable(t *testing.T, file string) ([]string, [][]string) {
	t.Helper()
	b, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var rows [][]string
	for _, l := range lines[1:] {
		rows = append(rows, strings.Split(l, "|"))
	}
	return strings.Split(lines[0], "|"), rows
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestParsePgBouncer reads SHOW POOLS and SHOW STATS of PgBouncer 1.18.0
// captured on this VM (2026-12-03): database test pooled in transaction
// mode with default_pool_size 2, five clients each running pg_sleep(1)
// (busy: two served, three waiting), then 2.5 s later (after). The
// console's own database is left out of the sums.
func TestParsePgBouncer(t *testing.T) {
	tests := []struct {
		when  string
		pools Pool
		stats PoolStats
	}{
		{"busy", Pool{ClActive: 2, ClWaiting: 3, SvActive: 2, MaxWaitSeconds: 0.414317},
			PoolStats{Xacts: 10, Queries: 10, XactSeconds: 9.032399, QuerySeconds: 9.032399, WaitSeconds: 4.024573}},
		{"after", Pool{SvIdle: 2},
			PoolStats{Xacts: 10, Queries: 10, XactSeconds: 18.022788, QuerySeconds: 18.022788, WaitSeconds: 7.996311}},
	}
	for _, tt := range tests {
		cols, rows := readTable(t, "pgbouncer-pools-"+tt.when+".txt")
		pools, err := ParsePools(cols, rows)
		if err != nil {
			t.Fatal(err)
		}
		cols, rows = readTable(t, "pgbouncer-stats-"+tt.when+".txt")
		stats, err := ParseStats(cols, rows)
		if err != nil {
			t.Fatal(err)
		}
		if len(pools) != 2 || pools[1].Database != "test" || pools[1].User != "root" || pools[1].Mode != "transaction" || pools[0].Database != "pgbouncer" {
			t.Errorf("%s: pools = %+v; want the console's and test/root in transaction mode", tt.when, pools)
		}
		r := addUp(pools, stats, "")
		got := r.Pools
		if !near(got.MaxWaitSeconds, tt.pools.MaxWaitSeconds) {
			t.Errorf("%s: maxwait = %v s; want %v", tt.when, got.MaxWaitSeconds, tt.pools.MaxWaitSeconds)
		}
		got.MaxWaitSeconds = tt.pools.MaxWaitSeconds
		if got != tt.pools {
			t.Errorf("%s: pools summed = %+v; want %+v", tt.when, got, tt.pools)
		}
		s, w := r.Stats, tt.stats
		if s.Xacts != w.Xacts || s.Queries != w.Queries || !near(s.XactSeconds, w.XactSeconds) || !near(s.QuerySeconds, w.QuerySeconds) || !near(s.WaitSeconds, w.WaitSeconds) {
			t.Errorf("%s: stats summed = %+v; want %+v", tt.when, s, w)
		}
		if only := addUp(pools, stats, "pgbouncer"); only.Pools.ClActive != 1 || only.Stats.Xacts == w.Xacts {
			t.Errorf("%s: the console's database alone = %+v; want its one active client", tt.when, only)
		}
	}
}

// TestParsePgBouncerRefuses checks the errors: a column the reading needs
// is missing, a number is not one.
func TestParsePgBouncerRefuses(t *testing.T) {
	cols, rows := readTable(t, "pgbouncer-pools-busy.txt")
	if _, err := ParsePools(cols[1:], rows); err == nil || !strings.Contains(err.Error(), `"database"`) {
		t.Errorf("ParsePools without database = %v; want an error naming the column", err)
	}
	bad := append([]string(nil), rows[1]...)
	bad[3] = "three"
	if _, err := ParsePools(cols, [][]string{bad}); err == nil || !strings.Contains(err.Error(), "cl_waiting") {
		t.Errorf("ParsePools with cl_waiting = three: %v; want an error naming the column", err)
	}
	cols, rows = readTable(t, "pgbouncer-stats-busy.txt")
	if _, err := ParseStats(cols[:3], rows); err == nil || !strings.Contains(err.Error(), "total_wait_time") {
		t.Errorf("ParseStats without total_wait_time = %v; want an error naming it", err)
	}
}
