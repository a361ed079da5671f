package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"bbslab/internal/testenv"
	"bbslab/loadtest/fleet"
)

func TestFleetFlags(t *testing.T) {
	var out, errs bytes.Buffer
	err := run(context.Background(), []string{"fleet", "-pgbouncer", "statement", "--", "x"}, &out, &errs)
	if err == nil || !strings.Contains(err.Error(), "off, session or transaction") {
		t.Errorf("fleet -pgbouncer statement: %v; want a usage error naming the modes", err)
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
