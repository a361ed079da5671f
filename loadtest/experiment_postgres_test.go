package loadtest

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestExperimentPostgresHint runs an experiment whose PostgreSQL server
// never comes up and checks that the runner says how to start one, and
// that the DSN's password stays out of its log and result.
func TestExperimentPostgresHint(t *testing.T) {
	e := tinyExperiment(t, "ok")
	e.Server.Command = []string{"sh", "-c", "echo cannot connect >&2; exit 1", "bbs", "-db", "postgres", "-dsn", "postgres://bob:pa55word@127.0.0.1:1/test"}
	e.Server.StartTimeout = Duration(5 * time.Second)
	var log strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := RunExperiment(ctx, e, ExperimentOptions{Out: t.TempDir(), Log: &log})
	if err == nil {
		t.Fatalf("RunExperiment with a server that exits: nil error")
	}
	if !strings.Contains(log.String(), "docs/postgres.md") || !strings.Contains(log.String(), "pg_ctlcluster") {
		t.Errorf("log %q; want the hint on how to start PostgreSQL", log.String())
	}
	if strings.Contains(log.String(), "pa55word") {
		t.Errorf("log %q holds the DSN's password", log.String())
	}
	if res == nil || len(res.Runs) == 0 || !slices.Contains(res.Runs[0].Command, "postgres://bob:xxxxx@127.0.0.1:1/test") {
		t.Errorf("result runs %+v; want the command with the DSN's password redacted", res)
	}
}

func TestUsesPostgres(t *testing.T) {
	for _, tt := range []struct {
		argv []string
		want bool
	}{
		{[]string{"bbs", "-db", "postgres"}, true},
		{[]string{"bbs", "--db=postgres"}, true},
		{[]string{"bbs", "-dsn=postgresql://h/d"}, true},
		{[]string{"bbs", "-dsn", "postgres://h/d"}, true},
		{[]string{"bbs", "-db", "sqlite", "-dsn", "bbs.db"}, false},
	} {
		if got := usesPostgres(tt.argv); got != tt.want {
			t.Errorf("usesPostgres(%q) = %v; want %v", tt.argv, got, tt.want)
		}
	}
}
