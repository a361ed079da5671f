package main

import (
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// TestValidationOnBorrow starts the board with pool_validate and
// db_latency on each database: every acquire pays one round trip, shown as
// acquire time in Server-Timing and /admin/stats, not as the command's
// queries; on PostgreSQL a pool whose backends were all terminated hands
// out fresh connections at once, which is what validation on borrow is for.
func TestValidationOnBorrow(t *testing.T) {
	const latMS = 10
	for _, db := range []string{"sqlite", "postgres"} {
		t.Run(db, func(t *testing.T) {
			args := []string{"-db", db, "-pool", "2", "-seed-posts", "10", "-db-latency", strconv.Itoa(latMS) + "ms", "-pool-validate", "ping"}
			app := ""
			if db == "sqlite" {
				args = append(args, "-dsn", filepath.Join(t.TempDir(), "bbs.db"))
			} else {
				var dsn string
				dsn, _, app = pgDSN(t, "validate")
				args = append(args, "-dsn", dsn)
			}
			s := start(t, args...)
			st := adminStats(t, s.admin)
			if got, _ := st["config"].(map[string]any)["pool_validate"].(string); got != "ping" {
				t.Errorf("/admin/stats config.pool_validate = %q; want \"ping\"", got)
			}
			before := num(st, "db_pool.validations_total")

			// EachGetView n=3: 3 acquires, each validated; 3 queries.
			acquireMS := func(cmd string) float64 {
				t.Helper()
				resp, err := http.Get(s.board + "?cmd=" + cmd + "&n=3&format=json")
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Fatalf("%s n=3: status %d", cmd, resp.StatusCode)
				}
				if q := resp.Header.Get("X-BBS-Queries"); q != "3" {
					t.Errorf("%s n=3: X-BBS-Queries %s; want 3 (validations are not the command's queries)", cmd, q)
				}
				timing := resp.Header.Get("Server-Timing")
				m := regexp.MustCompile(`acquire;dur=([0-9.]+)`).FindStringSubmatch(timing)
				if m == nil {
					t.Fatalf("Server-Timing %q has no acquire entry", timing)
				}
				ms, _ := strconv.ParseFloat(m[1], 64)
				return ms
			}
			if ms := acquireMS("EachGetView"); ms < 3*latMS {
				t.Errorf("EachGetView n=3 with pool_validate: Server-Timing acquire %v ms; want at least 3 validations of %d ms", ms, latMS)
			}
			if ms := acquireMS("OnceGetView"); ms < latMS {
				t.Errorf("OnceGetView n=3 with pool_validate: Server-Timing acquire %v ms; want at least one validation of %d ms", ms, latMS)
			}
			st = adminStats(t, s.admin)
			if got := num(st, "db_pool.validations_total") - before; got != 4 {
				t.Errorf("validations_total grew %v over 4 acquires; want 4", got)
			}
			if got := num(st, "db_pool.validation_seconds_total"); got < 4*latMS/1000.0 || got > num(st, "db_pool.acquire_wait_seconds_total") {
				t.Errorf("validation_seconds_total = %v; want at least %v and within acquire_wait_seconds_total %v", got, 4*latMS/1000.0, num(st, "db_pool.acquire_wait_seconds_total"))
			}
			if got := num(st, "commands.EachGetView.acquire_wait_seconds_total"); got < 3*latMS/1000.0 {
				t.Errorf("commands.EachGetView.acquire_wait_seconds_total = %v; want at least %v", got, 3*latMS/1000.0)
			}

			if db != "postgres" {
				return
			}
			n, err := terminateBackends(app)
			if err != nil || n < 2 {
				t.Fatalf("terminate the board's backends: %d, %v; want its 2 pooled connections", n, err)
			}
			// Each broken connection fails its ping and is replaced.
			for _, cmd := range []string{"EachGetView", "AllView"} {
				resp, err := http.Get(s.board + "?cmd=" + cmd + "&n=3&format=json")
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Errorf("%s after the backends were terminated: status %d; want 200 (validation replaces broken connections)", cmd, resp.StatusCode)
				}
			}
		})
	}
}
