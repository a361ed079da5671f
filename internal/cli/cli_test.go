package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestDurationParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"5s", 5 * time.Second},
		{"250ms", 250 * time.Millisecond},
		{"1m30s", 90 * time.Second},
		{"0", 0},
		{"-2s", -2 * time.Second},
	} {
		var d Duration
		if err := d.UnmarshalText([]byte(tc.in)); err != nil || time.Duration(d) != tc.want {
			t.Errorf("UnmarshalText(%q) = %v, %v; want %v", tc.in, time.Duration(d), err, tc.want)
		}
		b, _ := Duration(tc.want).MarshalText()
		var back Duration
		if err := back.Set(string(b)); err != nil || back != Duration(tc.want) {
			t.Errorf("MarshalText(%v) = %q, which reads back as %v, %v", tc.want, b, back, err)
		}
	}
}

func TestDurationRejects(t *testing.T) {
	for _, in := range []string{"", "5", "5 parsecs", "five seconds", "1h-", "s"} {
		d := Duration(7)
		err := d.Set(in)
		if err == nil || !strings.Contains(err.Error(), "not a duration") || !strings.Contains(err.Error(), fmt.Sprintf("%q", in)) {
			t.Errorf("Set(%q) = %v; want an error quoting the input and saying it is not a duration", in, err)
		}
		if d != 7 {
			t.Errorf("Set(%q) changed the value to %v; want it kept on error", in, d)
		}
	}
}

type testFile struct {
	Workers int      `toml:"workers"`
	Wait    Duration `toml:"wait"`
	Server  struct {
		Addr string `toml:"addr"`
	} `toml:"server"`
}

func TestDecodeTOML(t *testing.T) {
	var f testFile
	if err := DecodeTOML("config", "a.toml", []byte("workers = 3\nwait = \"250ms\"\n[server]\naddr = \"x\"\n"), &f); err != nil {
		t.Fatalf("DecodeTOML(good file) = %v", err)
	}
	if f.Workers != 3 || f.Wait != Duration(250*time.Millisecond) || f.Server.Addr != "x" {
		t.Errorf("DecodeTOML(good file) gave %+v", f)
	}
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"workers = 3\npools = 2\n", []string{`config a.toml: unknown key "pools" at line 2`}},
		{"[server]\naddr = \"x\"\nport = 1\n\n[extra]\nx = 1\n", []string{`unknown key "server.port" at line 3`, `unknown key "extra" at line 5`}},
		{"workers = \"five\"\n", []string{"config a.toml:1:", `key "workers"`}},
		{"\nwait = \"5 parsecs\"\n", []string{"a.toml:2:", "not a duration"}},
		{"workers = \n", []string{"config a.toml:1:"}},
	} {
		var f testFile
		err := DecodeTOML("config", "a.toml", []byte(tc.text), &f)
		if err == nil {
			t.Errorf("DecodeTOML(%q) succeeded; want an error", tc.text)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("DecodeTOML(%q) = %q; want it to say %q", tc.text, err, w)
			}
		}
	}
}

func TestExitCodes(t *testing.T) {
	plain := errors.New("boom")
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, 0},
		{"help", fmt.Errorf("parse: %w", flag.ErrHelp), 0},
		{"plain", plain, ExitFailure},
		{"usage", Usage(plain), ExitUsage},
		{"usagef wrapped", fmt.Errorf("serve: %w", Usagef("-n %d: want 1..10", 0)), ExitUsage},
		{"interrupted", Outcome(true, true), ExitInterrupted},
		{"slo", Outcome(false, true), ExitSLO},
		{"success", Outcome(false, false), 0},
		{"code", WithCode(42, plain), 42},
	} {
		if got := ExitCode(tc.err); got != tc.want {
			t.Errorf("ExitCode(%s: %v) = %d; want %d", tc.name, tc.err, got, tc.want)
		}
	}
	if Usage(nil) != nil || WithCode(3, nil) != nil {
		t.Errorf("Usage(nil), WithCode(3, nil) are not nil")
	}
	if !errors.Is(Usage(plain), plain) {
		t.Errorf("Usage(err) lost err from the chain")
	}
}

func TestExitPrints(t *testing.T) {
	for _, tc := range []struct {
		err     error
		code    int
		printed string
	}{
		{nil, 0, ""},
		{flag.ErrHelp, 0, ""},
		{errors.New("boom"), 1, "bbs: boom\n"},
		{Usage(errors.New("")), 2, ""}, // flag printed the problem
		{Usagef("bad -n"), 2, "bbs: bad -n\n"},
	} {
		var b bytes.Buffer
		if code := Exit(&b, "bbs", tc.err); code != tc.code || b.String() != tc.printed {
			t.Errorf("Exit(%v) = %d, printed %q; want %d, %q", tc.err, code, b.String(), tc.code, tc.printed)
		}
	}
}
