package machine

import (
	"strings"
	"testing"
	"time"
)

// TestParsePIDStat reads utime + stime after a command name that holds
// spaces and parentheses, and refuses lines it cannot read.
func TestParsePIDStat(t *testing.T) {
	rest := " S 1 2 3 4 5 6 7 8 9 10 250 30 0 0 20 0 1 0"
	for _, tc := range []struct {
		line string
		want time.Duration
		err  string
	}{
		{"42 (bbs)" + rest, 2800 * time.Millisecond, ""},
		{"42 (a (b) c)" + rest, 2800 * time.Millisecond, ""},
		{"42 bbs S 1 2", 0, "unexpected format"},
		{"42 (bbs) S 1 2 3", 0, "unexpected format"},
		{"42 (bbs) S 1 2 3 4 5 6 7 8 9 10 x 30 0", 0, `utime "x"`},
	} {
		got, err := parsePIDStat([]byte(tc.line), "42/stat")
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parsePIDStat(%q) = %v, %v; want an error naming %s", tc.line, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parsePIDStat(%q) = %v, %v; want %v", tc.line, got, err, tc.want)
		}
	}
}

// TestReadLoad reads the load average, which Linux always has.
func TestReadLoad(t *testing.T) {
	l, err := ReadLoad()
	if err != nil || l.One < 0 || l.Runnable == nil {
		t.Errorf("ReadLoad() = %+v, %v; want a load average with the runnable count", l, err)
	}
}
