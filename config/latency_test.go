package config

import (
	"strings"
	"testing"
)

func TestLatencyKnobs(t *testing.T) {
	d := Default()
	if !d.TCPNoDelay || d.WriteChunks != 0 || d.GOGC != 0 || d.GOMemLimit != 0 || d.Warmup {
		t.Errorf("Default().Latency = %+v; want tcp_nodelay on and the rest unset", d.Latency)
	}
	p := writeFile(t, "tcp_nodelay = false\nwrite_chunks = 8\ngogc = 50\ngomemlimit = \"256MiB\"\nwarmup = true\n")
	c, err := parse(t, "-config", p, "-gogc", "-1")
	if err != nil {
		t.Fatal(err)
	}
	want := Latency{TCPNoDelay: false, WriteChunks: 8, GOGC: -1, GOMemLimit: 256 << 20, Warmup: true}
	if c.Latency != want {
		t.Errorf("file + -gogc -1 = %+v; want %+v", c.Latency, want)
	}
	c, err = parse(t, "-tcp-nodelay=false", "-write-chunks", "3", "-gomemlimit", "1GB", "-warmup")
	if err != nil {
		t.Fatal(err)
	}
	if c.TCPNoDelay || c.WriteChunks != 3 || c.GOMemLimit != 1e9 || !c.Warmup {
		t.Errorf("flags = %+v", c.Latency)
	}
}

func TestLatencyInvalid(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-write-chunks", "-1"}, "write_chunks = -1"},
		{[]string{"-write-chunks", "1001"}, "write_chunks = 1001"},
		{[]string{"-gogc", "-2"}, "gogc = -2"},
		{[]string{"-gomemlimit", "lots"}, `"lots" is not a size`},
		{[]string{"-gomemlimit", "-5MiB"}, "is not a size"},
	} {
		_, err := parse(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v; want an error containing %q", tc.args, err, tc.want)
		}
	}
}

func TestSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Size
		out  string
	}{
		{"", 0, ""},
		{"512MiB", 512 << 20, "512MiB"},
		{"2GiB", 2 << 30, "2GiB"},
		{"1GB", 1e9, "1000000000B"},
		{"1536KiB", 1536 << 10, "1536KiB"},
		{"4096", 4096, "4KiB"},
		{"100B", 100, "100B"},
	} {
		var z Size
		if err := z.Set(tc.in); err != nil || z != tc.want || z.String() != tc.out {
			t.Errorf("Set(%q) = %d (%q), %v; want %d (%q)", tc.in, z, z.String(), err, tc.want, tc.out)
		}
	}
}
