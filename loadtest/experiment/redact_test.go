package experiment

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"bbslab/internal/cli"
)

// TestExperimentStartHint runs an experiment whose PostgreSQL server never
// comes up and checks that the runner logs the start hint its options
// give, and that the DSN's password stays out of its log and result.
func TestExperimentStartHint(t *testing.T) {
	e := tinyExperiment(t, "ok")
	e.Server.Command = []string{"sh", "-c", "echo cannot connect >&2; exit 1", "bbs", "-db", "postgres", "-dsn", "postgres://bob:pa55word@127.0.0.1:1/test"}
	e.Server.StartTimeout = cli.Duration(5 * time.Second)
	var log strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	hint := func(argv []string) string {
		if slices.Contains(argv, "postgres") {
			return "start the database: docs/postgres.md"
		}
		return ""
	}
	target := fakeTarget
	target.StartHint = hint
	res, err := Run(ctx, e, Options{Target: target, Out: t.TempDir(), Log: &log})
	if err == nil {
		t.Fatalf("Run with a server that exits: nil error")
	}
	if !strings.Contains(log.String(), "start the database: docs/postgres.md") {
		t.Errorf("log %q; want the start hint the options gave", log.String())
	}
	if strings.Contains(log.String(), "pa55word") {
		t.Errorf("log %q holds the DSN's password", log.String())
	}
	if res == nil || len(res.Runs) == 0 || !slices.Contains(res.Runs[0].Command, "postgres://bob:xxxxx@127.0.0.1:1/test") {
		t.Errorf("result runs %+v; want the command with the DSN's password redacted", res)
	}
}
