package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDatabaseAtADistance starts the board with db_latency and
// connect_latency on each database and finds the wait everywhere the lab
// explains time: Server-Timing, the SQL trace, the access log,
// /admin/stats and /metrics.
func TestDatabaseAtADistance(t *testing.T) {
	for _, db := range []string{"sqlite", "postgres"} {
		t.Run(db, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"-db", db, "-pool", "2", "-seed-posts", "10",
				"-db-latency", "20ms", "-connect-latency", "30ms",
				"-sql-trace", filepath.Join(dir, "trace.jsonl"), "-access-log", filepath.Join(dir, "access.jsonl")}
			if db == "sqlite" {
				args = append(args, "-dsn", filepath.Join(dir, "bbs.db"))
			} else {
				dsn, _, _ := pgDSN(t, "distance")
				args = append(args, "-dsn", dsn)
			}
			s := start(t, args...)

			// The pool of 2 was filled at start, each open waiting 30ms.
			st := adminStats(t, s.admin)
			if got := num(st, "db_pool.connect_wait_seconds_total"); got < 2*0.030 {
				t.Errorf("connect_wait_seconds_total after filling a pool of 2 = %v; want at least 0.060", got)
			}

			resp, err := http.Get(s.board + "?cmd=OnceGetView&n=3&format=json")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 || resp.Header.Get("X-BBS-Queries") != "3" {
				t.Fatalf("OnceGetView n=3: %d, %s queries", resp.StatusCode, resp.Header.Get("X-BBS-Queries"))
			}
			timing := resp.Header.Get("Server-Timing")
			m := regexp.MustCompile(`net;dur=([0-9.]+)`).FindStringSubmatch(timing)
			if m == nil {
				t.Fatalf("Server-Timing %q has no net entry", timing)
			}
			if ms, _ := strconv.ParseFloat(m[1], 64); ms < 60 {
				t.Errorf("Server-Timing net = %v ms for 3 statements at 20ms; want at least 60 (%s)", ms, timing)
			}

			st = adminStats(t, s.admin)
			for _, path := range []string{"db_pool.network_wait_seconds_total", "commands.OnceGetView.network_wait_seconds_total"} {
				if got := num(st, path); got < 0.060 {
					t.Errorf("%s = %v; want at least 0.060", path, got)
				}
			}
			if got := num(st, "db_pool.network_round_trips_total"); got < 3 {
				t.Errorf("network_round_trips_total = %v; want at least 3", got)
			}

			_, metrics := getBody(t, s.admin+"/metrics")
			mm := regexp.MustCompile(`(?m)^bbs_db_network_wait_seconds_total ([0-9.e+-]+)$`).FindStringSubmatch(metrics)
			if mm == nil {
				t.Fatalf("/metrics lacks bbs_db_network_wait_seconds_total")
			}
			if v, _ := strconv.ParseFloat(mm[1], 64); v < 0.060 {
				t.Errorf("bbs_db_network_wait_seconds_total = %v; want at least 0.060", v)
			}

			// The logs are written as requests end; poll briefly.
			var line struct {
				Command     string  `json:"command"`
				NetworkWait float64 `json:"db_network_wait"`
				DBTime      float64 `json:"db_time"`
			}
			found := eventually(2*time.Second, func() bool {
				for _, l := range jsonLines(t, filepath.Join(dir, "access.jsonl")) {
					if json.Unmarshal([]byte(l), &line) == nil && line.Command == "OnceGetView" {
						return true
					}
				}
				return false
			})
			if !found {
				t.Fatalf("no OnceGetView line in the access log")
			}
			if line.NetworkWait < 0.060 || line.DBTime < line.NetworkWait {
				t.Errorf("access log db_network_wait %v, db_time %v; want at least 0.060 within db_time", line.NetworkWait, line.DBTime)
			}
			waited := 0
			for _, l := range jsonLines(t, filepath.Join(dir, "trace.jsonl")) {
				var tl struct {
					NetworkWait float64 `json:"network_wait"`
				}
				if json.Unmarshal([]byte(l), &tl) == nil && tl.NetworkWait >= 0.020 {
					waited++
				}
			}
			if waited < 3 {
				t.Errorf("%d SQL trace lines with network_wait >= 0.020; want at least 3", waited)
			}
		})
	}
}

// jsonLines reads the lines of a file, none when it does not exist yet.
func jsonLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" {
			out = append(out, s)
		}
	}
	return out
}
