//go:build unix

package docs

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// exerciseChecks holds, by exercise number, what the workshop test reads
// in an exercise's outputs beyond the exit codes: the figures the page
// tells the attendee to watch, where a wrong one would mean a broken
// exercise rather than a slow machine.
var exerciseChecks = map[string]func(ran []ranCommand) error{
	"4":  checkProfiles,
	"10": checkSecondBoard,
}

// The figures exercise 10 reads: the load tool's summary, the replicas'
// Prometheus counters, HAProxy's exporter, psql's table and grep -c.
var (
	toolTotal    = regexp.MustCompile(`(?m)^Requests\s+\[total, rate, throughput\]\s+(\d+),`)
	toolStatuses = regexp.MustCompile(`(?m)^Status Codes\s+\[code:count\]\s+(.*)$`)
	replicaCount = regexp.MustCompile(`(?m)^bbs_requests_total\{code="(\d+)",command="AllView"\} (\d+)$`)
	frontCount   = regexp.MustCompile(`(?m)^haproxy_frontend_http_requests_total\{proxy="board"\} (\d+)$`)
	psqlRow      = regexp.MustCompile(`(?m)^\s*bbslab_fleet_\w+\s*\|\s*(\d+)\s*\|\s*(\d+)\s*$`)
	grepCount    = regexp.MustCompile(`(?m)^\S+\.log:(\d+)$`)
)

// flagValue returns the number a command line gives flag, 0 if none.
func flagValue(line, flag string) int {
	m := regexp.MustCompile(`\s` + flag + `[ =](\d+)`).FindStringSubmatch(line)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// A fleetStep is one fleet of exercise 10 and the commands run while it ran.
type fleetStep struct {
	Fleet string // the fleet's command line
	Ran   []ranCommand
}

// fleetSteps splits an exercise's commands at each background fleet; a
// "kill %N" ends the step.
func fleetSteps(ran []ranCommand) []fleetStep {
	var steps []fleetStep
	in := false
	for _, r := range ran {
		switch {
		case r.Background && strings.Contains(r.Line, "/cmd/loadtest fleet "):
			steps, in = append(steps, fleetStep{Fleet: r.Line}), true
		case killJob.MatchString(r.Line):
			in = false
		case in:
			steps[len(steps)-1].Ran = append(steps[len(steps)-1].Ran, r)
		}
	}
	return steps
}

// checkSecondBoard checks exercise 10's promises: in each step the
// replicas' request counts, status by status, add up to the load tool's,
// and HAProxy's frontend counted as many; straight to PostgreSQL under a
// CONNECTION LIMIT below replicas x pool, some requests fail with 503, as
// many as the replicas' logs have "too many connections"; through
// PgBouncer none fails and PostgreSQL holds at most PgBouncer's pool of
// the role's connections.
func checkSecondBoard(ran []ranCommand) error {
	steps := fleetSteps(ran)
	if len(steps) != 2 {
		return fmt.Errorf("exercise 10 ran %d fleets; want 2 (straight to PostgreSQL, then through PgBouncer)", len(steps))
	}
	var errs []error
	for i, s := range steps {
		if err := checkFleetStep(s); err != nil {
			errs = append(errs, fmt.Errorf("step %d (%s): %w", i+1, s.Fleet, err))
		}
	}
	return errors.Join(errs...)
}

func checkFleetStep(s fleetStep) error {
	var out strings.Builder
	for _, r := range s.Ran {
		out.WriteString(r.Output)
		out.WriteString("\n")
	}
	text := out.String()
	m := toolTotal.FindStringSubmatch(text)
	sm := toolStatuses.FindStringSubmatch(text)
	if m == nil || sm == nil {
		return fmt.Errorf("no load tool summary (Requests [total...], Status Codes) in the outputs:\n%s", tail(text))
	}
	total, _ := strconv.Atoi(m[1])
	tool := map[string]int{}
	for _, f := range strings.Fields(sm[1]) {
		code, n, _ := strings.Cut(f, ":")
		tool[code], _ = strconv.Atoi(n)
	}
	replicas, sum, outputs := map[string]int{}, 0, 0
	for _, r := range s.Ran {
		ms := replicaCount.FindAllStringSubmatch(r.Output, -1)
		if len(ms) > 0 {
			outputs++
		}
		for _, m := range ms {
			n, _ := strconv.Atoi(m[2])
			replicas[m[1]] += n
			sum += n
		}
	}
	var errs []error
	if replicasWanted := flagValue(s.Fleet, "-replicas"); outputs != replicasWanted {
		errs = append(errs, fmt.Errorf("the counters of %d replicas were read; want %d", outputs, replicasWanted))
	}
	if total == 0 || sum != total || fmt.Sprint(replicas) != fmt.Sprint(tool) {
		errs = append(errs, fmt.Errorf("the load tool counted %d requests %v; the replicas %d %v; want the same, and some", total, tool, sum, replicas))
	}
	if f := frontCount.FindStringSubmatch(text); f == nil || f[1] != strconv.Itoa(total) {
		errs = append(errs, fmt.Errorf("HAProxy's frontend counted %v; want the tool's %d", f, total))
	}
	failed := total - tool["200"]
	if pool := flagValue(s.Fleet, "-pgbouncer-pool"); strings.Contains(s.Fleet, "-pgbouncer ") {
		if failed != 0 {
			errs = append(errs, fmt.Errorf("through PgBouncer %d requests failed (%v); want none", failed, tool))
		}
		limit := flagValue(s.Fleet, "-conn-limit")
		rows := psqlRow.FindAllStringSubmatch(text, -1)
		found := false
		for _, r := range rows {
			conns, _ := strconv.Atoi(r[1])
			found = found || (r[2] == strconv.Itoa(limit) && conns >= 1 && conns <= pool)
		}
		if !found {
			errs = append(errs, fmt.Errorf("psql showed %v; want a role of CONNECTION LIMIT %d holding 1 to %d (PgBouncer's pool) connections", rows, limit, pool))
		}
	} else {
		logged := 0
		for _, m := range grepCount.FindAllStringSubmatch(text, -1) {
			n, _ := strconv.Atoi(m[1])
			logged += n
		}
		if tool["503"] == 0 || failed != tool["503"] || logged != tool["503"] {
			errs = append(errs, fmt.Errorf("under the connection limit: %d requests failed (%v), the replicas' logs say \"too many connections\" %d times; want some 503s, only 503s, one log line each", failed, tool, logged))
		}
	}
	return errors.Join(errs...)
}

func TestCheckSecondBoard(t *testing.T) {
	fleetLine := "go run ./cmd/loadtest fleet -replicas 2 -conn-limit 6 -port 8080 -- go run ./cmd/bbs"
	pgbLine := "go run ./cmd/loadtest fleet -replicas 2 -conn-limit 6 -pgbouncer transaction -pgbouncer-pool 4 -- go run ./cmd/bbs"
	run := func(total, ok, busy int) string {
		codes := fmt.Sprintf("200:%d", ok)
		if busy > 0 {
			codes += fmt.Sprintf("  503:%d", busy)
		}
		return fmt.Sprintf("Requests      [total, rate, throughput]               %d, 1308.75, 1284.25\nStatus Codes  [code:count]                            %s\n", total, codes)
	}
	replica := func(ok, busy int) string {
		s := fmt.Sprintf("bbs_db_connects_total 4\nbbs_requests_total{code=\"200\",command=\"AllView\"} %d\n", ok)
		if busy > 0 {
			s += fmt.Sprintf("bbs_requests_total{code=\"503\",command=\"AllView\"} %d\n", busy)
		}
		return s
	}
	front := func(n int) string {
		return fmt.Sprintf("haproxy_frontend_http_requests_total{proxy=\"board\"} %d\nhaproxy_frontend_http_requests_total{proxy=\"stats\"} 2\n", n)
	}
	psql := func(conns int) string {
		return fmt.Sprintf("          usename          | connections | conn_limit \n---------------------------+-------------+------------\n bbslab_fleet_2b7c1e4d40df |     %d |          6\n(1 row)\n", conns)
	}
	exercise := func(step1 []string, step2 []string) []ranCommand {
		ran := []ranCommand{{Line: fleetLine, Background: true}}
		for _, o := range step1 {
			ran = append(ran, ranCommand{Line: "x", Output: o})
		}
		ran = append(ran, ranCommand{Line: "kill %1"}, ranCommand{Line: pgbLine, Background: true})
		for _, o := range step2 {
			ran = append(ran, ranCommand{Line: "x", Output: o})
		}
		return ran
	}
	good1 := []string{run(5235, 5137, 98), replica(3278, 25), replica(1859, 73), front(5235), psql(6), "out/fleet/replica-1.log:25\nout/fleet/replica-2.log:73\n"}
	good2 := []string{run(8032, 8032, 0), replica(4007, 0), replica(4025, 0), front(8032), psql(4)}
	if err := checkSecondBoard(exercise(good1, good2)); err != nil {
		t.Errorf("checkSecondBoard(the page's outputs) = %v; want nil", err)
	}
	for _, tc := range []struct {
		name         string
		step1, step2 []string
		want         string
	}{
		{"a replica's count short", good1, []string{run(8032, 8032, 0), replica(4007, 0), replica(4024, 0), front(8032), psql(4)}, "the replicas 8031"},
		{"one replica read", good1, []string{run(8032, 8032, 0), replica(8032, 0), front(8032), psql(4)}, "counters of 1 replicas"},
		{"HAProxy retried", good1, []string{run(8032, 8032, 0), replica(4007, 0), replica(4025, 0), front(8033), psql(4)}, "HAProxy's frontend"},
		{"no error under the limit", []string{run(5235, 5235, 0), replica(3278, 0), replica(1957, 0), front(5235), "out/fleet/replica-1.log:0\n"}, good2, "want some 503s"},
		{"errors through PgBouncer", good1, []string{run(8032, 8030, 2), replica(4007, 0), replica(4023, 2), front(8032), psql(4)}, "through PgBouncer 2 requests failed"},
		{"PostgreSQL beyond PgBouncer's pool", good1, []string{run(8032, 8032, 0), replica(4007, 0), replica(4025, 0), front(8032), psql(5)}, "PgBouncer's pool"},
	} {
		err := checkSecondBoard(exercise(tc.step1, tc.step2))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("checkSecondBoard(%s) = %v; want an error containing %q", tc.name, err, tc.want)
		}
	}
}
