package config

import (
	"strings"
	"testing"
	"time"
)

func TestDistanceKnobs(t *testing.T) {
	if d := Default().Distance; d != (Distance{}) {
		t.Errorf("Default().Distance = %+v; want none", d)
	}
	p := writeFile(t, "db_latency = \"2ms\"\ndb_latency_jitter = \"500us\"\nconnect_latency = \"30ms\"\n")
	c, err := parse(t, "-config", p, "-db-latency", "3ms")
	if err != nil {
		t.Fatal(err)
	}
	want := Distance{DBLatency: Duration(3 * time.Millisecond), DBLatencyJitter: Duration(500 * time.Microsecond), ConnectLatency: Duration(30 * time.Millisecond)}
	if c.Distance != want {
		t.Errorf("file + -db-latency 3ms = %+v; want %+v", c.Distance, want)
	}
}

func TestDistanceInvalid(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-db-latency", "-1ms"}, "db_latency = -1ms"},
		{[]string{"-db-latency", "11s"}, "db_latency = 11s"},
		{[]string{"-db-latency-jitter", "-1ns"}, "db_latency_jitter = -1ns"},
		{[]string{"-connect-latency", "1m"}, "connect_latency = 1m0s"},
		{[]string{"-connect-latency", "soon"}, `"soon" is not a duration`},
	} {
		_, err := parse(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v; want an error containing %q", tc.args, err, tc.want)
		}
	}
	_, err := parse(t, "-config", writeFile(t, "db_latency = \"20s\"\n"))
	if err == nil || !strings.Contains(err.Error(), "db_latency = 20s: must be 0s (none) up to 10s") {
		t.Errorf("db_latency = 20s in a file: %v; want the key and its range", err)
	}
}
