package config

import (
	"strings"
	"testing"
	"time"
)

func TestDBWait(t *testing.T) {
	if d := Default().DBWait; d != 0 {
		t.Errorf("default db_wait = %v; want 0 (fail at once)", d)
	}
	c, err := parse(t, "-db-wait", "30s")
	if err != nil || time.Duration(c.DBWait) != 30*time.Second {
		t.Errorf("-db-wait 30s = %v, %v; want 30s", c.DBWait, err)
	}
	c, err = parse(t, "-config", writeFile(t, "db_wait = \"2m\"\n"))
	if err != nil || time.Duration(c.DBWait) != 2*time.Minute {
		t.Errorf("db_wait = \"2m\" in a file = %v, %v; want 2m", c.DBWait, err)
	}
	for _, v := range []string{"-1s", "2h"} {
		_, err := parse(t, "-db-wait", v)
		if err == nil || !strings.Contains(err.Error(), "db_wait = ") {
			t.Errorf("-db-wait %s: %v; want an error naming db_wait", v, err)
		}
		if err != nil && !strings.Contains(err.Error(), "up to 1h") {
			t.Errorf("-db-wait %s: %v; want the allowed range", v, err)
		}
	}
}
