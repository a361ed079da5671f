package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestWarmUpCountedEverywhere starts a board with -warmup and checks the
// one rule for the warm-up pass: it is counted in every counter of the
// database work, so that after a warm start, and after requests, the
// commands' acquires add up to the pool's and their queries to
// bbs_db_queries_total.
func TestWarmUpCountedEverywhere(t *testing.T) {
	db := filepath.Join(t.TempDir(), "bbs.db")
	const pageSize = 4
	s := start(t, "-dsn", db, "-seed-posts", "20", "-page-size", strconv.Itoa(pageSize), "-warmup", "-pool", "2")
	if !eventually(10*time.Second, func() bool { code, _ := getBody(t, s.admin+"/readyz"); return code == 200 }) {
		t.Fatal("not ready 10 s after start with -warmup")
	}
	// A request's metrics are recorded just after its response is sent:
	// read until they agree, for at most 5 s.
	check := func(when string, wantRequests, wantAcquires, wantQueries float64) {
		t.Helper()
		var problems []string
		eventually(5*time.Second, func() bool {
			problems = counted(t, s.admin, when, wantRequests, wantAcquires, wantQueries)
			return len(problems) == 0
		})
		for _, p := range problems {
			t.Error(p)
		}
	}
	// Warm-up: AllView 1 acquire 1 query, OnceGetView 1 and pageSize,
	// EachGetView pageSize and pageSize.
	check("after the warm-up", 3, 2+pageSize, 1+2*pageSize)
	if code, _ := getBody(t, s.board+"?cmd=EachGetView"); code != 200 {
		t.Fatalf("EachGetView: %d", code)
	}
	check("after one EachGetView", 4, 2+2*pageSize, 1+3*pageSize)
}

// counted reads /admin/stats and /metrics and returns what differs from
// the wanted command counts and where the pool's acquires or
// bbs_db_queries_total disagree with the commands'.
func counted(t *testing.T, admin, when string, wantRequests, wantAcquires, wantQueries float64) []string {
	t.Helper()
	var problems []string
	{
		st := adminStats(t, admin)
		var requests, acquires, queries float64
		for _, cmd := range []string{"AllView", "OnceGetView", "EachGetView"} {
			requests += num(st, "commands."+cmd+".requests")
			acquires += num(st, "commands."+cmd+".acquires")
			queries += num(st, "commands."+cmd+".queries")
		}
		pool := num(st, "db_pool.acquires")
		_, metrics := getBody(t, admin+"/metrics")
		var metricQueries float64
		for _, line := range strings.Split(metrics, "\n") {
			if rest, ok := strings.CutPrefix(line, "bbs_db_queries_total{"); ok {
				var v float64
				if _, err := fmt.Sscan(rest[strings.Index(rest, "}")+1:], &v); err == nil {
					metricQueries += v
				}
			}
		}
		t.Logf("%s: commands %v requests, %v acquires, %v queries; pool %v acquires; bbs_db_queries_total %v", when, requests, acquires, queries, pool, metricQueries)
		if requests != wantRequests || acquires != wantAcquires || queries != wantQueries {
			problems = append(problems, fmt.Sprintf("%s: commands count %v requests, %v acquires, %v queries; want %v, %v, %v", when, requests, acquires, queries, wantRequests, wantAcquires, wantQueries))
		}
		if pool != acquires || metricQueries != queries {
			problems = append(problems, fmt.Sprintf("%s: pool acquires %v, commands' %v; bbs_db_queries_total %v, commands' %v; want them equal", when, pool, acquires, metricQueries, queries))
		}
	}
	return problems
}
