package config

import (
	"strings"
	"testing"
)

// TestReadingKeys checks the log and profile keys from the file, from the
// flags, and their ranges.
func TestReadingKeys(t *testing.T) {
	p := writeFile(t, "access_log = \"-\"\nsql_trace = \"trace.jsonl\"\n[profile]\nblock_rate = 1\nmutex_fraction = 5\n")
	c, err := parse(t, "-config", p, "-mutex-fraction", "7")
	if err != nil {
		t.Fatal(err)
	}
	if c.AccessLog != "-" || c.SQLTrace != "trace.jsonl" || c.Profile.BlockRate != 1 || c.Profile.MutexFraction != 7 {
		t.Errorf("file + flags = %+v; want access_log -, sql_trace trace.jsonl, block_rate 1, mutex_fraction 7 (flag)", c)
	}
	d := Default()
	if d.AccessLog != "" || d.SQLTrace != "" || d.Profile != (ProfileConfig{}) {
		t.Errorf("Default() logs and profiles = %q %q %+v; want all off", d.AccessLog, d.SQLTrace, d.Profile)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-block-rate", "-1"}, "profile.block_rate = -1"},
		{[]string{"-mutex-fraction", "-2"}, "profile.mutex_fraction = -2"},
	} {
		_, err := parse(t, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v; want an error naming %q", tt.args, err, tt.want)
		}
	}
	if _, err := parse(t, "-config", writeFile(t, "[profile]\nblock_rates = 1\n")); err == nil || !strings.Contains(err.Error(), "profile.block_rates") {
		t.Errorf("unknown [profile] key: %v; want an error naming profile.block_rates", err)
	}
}
