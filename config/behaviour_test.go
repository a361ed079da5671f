package config

import (
	"strings"
	"testing"
	"time"
)

func TestBehaviourKnobs(t *testing.T) {
	p := writeFile(t, "stall_every = \"10s\"\nstall_for = \"1s\"\ndelay = \"10ms:50,100ms:10\"\nerror_status = 503\nerror_share = 0.01\nsize = 2048\ntruth_log = true\ntruth_dir = \"runs\"\n")
	c, err := parse(t, "-config", p, "-stall-for", "2s", "-truth-file", "t.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Behaviour.Settings()
	if err != nil {
		t.Fatal(err)
	}
	if s.StallEvery != 10*time.Second || s.StallFor != 2*time.Second || s.Delay.String() != "10ms:50,100ms:10" || s.ErrorStatus != 503 || s.ErrorShare != 0.01 || s.Size != 2048 || !c.TruthLog || c.TruthDir != "runs" || c.TruthFile != "t.json" {
		t.Errorf("file + flags = %+v; want stall 10s/2s (flag), the mix, 503 at 0.01, 2048, log, runs, t.json", c.Behaviour)
	}
	if d, _ := Default().Behaviour.Settings(); !d.IsZero() {
		t.Errorf("Default() behaviour = %+v; want none", d)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-stall-every", "1s"}, "stall_for = 0s"},
		{[]string{"-stall-every", "1s", "-stall-for", "1s"}, "stall_for = 1s"},
		{[]string{"-stall-every", "2h", "-stall-for", "1s"}, "stall_every = 2h0m0s"},
		{[]string{"-delay", "uniform:9ms-1ms"}, "delay = \"uniform:9ms-1ms\""},
		{[]string{"-error-share", "0.5"}, "error_status = 0"},
		{[]string{"-error-share", "2", "-error-status", "503"}, "error_share = 2"},
		{[]string{"-error-status", "99"}, "error_status = 99"},
		{[]string{"-size", "-1"}, "size = -1"},
		{[]string{"-truth-file", "t.json"}, `truth_file = "t.json": needs truth_dir`},
		{[]string{"-truth-dir", "runs", "-truth-file", "../t.json"}, `truth_file = "../t.json": holds a path separator`},
		{[]string{"-truth-dir", "runs", "-truth-file", "/tmp/t.json"}, `truth_file = "/tmp/t.json": is an absolute path`},
		{[]string{"-truth-dir", "runs", "-truth-file", ".."}, `truth_file = "..": is not a file name`},
	} {
		_, err := parse(t, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v; want an error naming %q", tt.args, err, tt.want)
		}
	}
}
