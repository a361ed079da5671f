package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"bbslab/workshop/doctor"
)

// TestDoctorJSON runs "workshop doctor -json" on this machine (PostgreSQL
// at a port where none listens): the report reads back with a line per
// exercise, PostgreSQL's exercises are not ready, and the exit status is
// the core exercises' verdict.
func TestDoctorJSON(t *testing.T) {
	var out, errb bytes.Buffer
	code := runDoctor([]string{"-json", "-window", "50ms", "-trial-role=false", "-dsn", "postgres://nobody@127.0.0.1:1/none?sslmode=disable"}, &out, &errb)
	var r doctor.Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out.String(), errb.String())
	}
	if len(r.Exercises) != 11 {
		t.Errorf("%d exercises; want 11", len(r.Exercises))
	}
	for _, l := range r.Exercises {
		if (l.Exercise == 7 || l.Exercise == 10) && l.Ready {
			t.Errorf("exercise %d ready without PostgreSQL", l.Exercise)
		}
	}
	if want := map[bool]int{true: 0, false: 1}[r.CoreReady()]; code != want {
		t.Errorf("exit %d with CoreReady %v; want %d", code, r.CoreReady(), want)
	}
}

// TestDoctorUsage: a bad flag or an argument is a usage error (2).
func TestDoctorUsage(t *testing.T) {
	for _, args := range [][]string{{"-bogus"}, {"extra"}} {
		var out, errb bytes.Buffer
		if code := runDoctor(args, &out, &errb); code != 2 || errb.Len() == 0 {
			t.Errorf("doctor %v: exit %d, stderr %q; want 2 and a message", args, code, errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := runDoctor([]string{"-h"}, &out, &errb); code != 0 || !strings.Contains(errb.String(), "core exercises") {
		t.Errorf("doctor -h: exit %d, %q", code, errb.String())
	}
}
