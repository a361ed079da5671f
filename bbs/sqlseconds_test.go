package bbs

import (
	"encoding/json"
	"math"
	"net/http/httptest"
	"testing"
	"time"

	"bbslab/commands"
	"bbslab/entity/fake"
)

// TestSQLSecondsTotal checks db_pool.sql_seconds_total: the time in SQL
// of every command, the sum of the commands' db_seconds_total.
func TestSQLSecondsTotal(t *testing.T) {
	s := New(Options{Store: fake.New(10), Workers: 2, SeedPosts: 10})
	s.stats.record("AllView", commands.Tally{SQLTime: 1500 * time.Millisecond}, true)
	s.stats.record("EachGetView", commands.Tally{SQLTime: 250 * time.Millisecond}, true)
	s.stats.record("EachGetView", commands.Tally{SQLTime: 250 * time.Millisecond}, false)
	ts := httptest.NewServer(s.AdminHandler())
	defer ts.Close()
	_, body := get(t, ts.URL+"/admin/stats")
	var st struct {
		DBPool struct {
			SQL float64 `json:"sql_seconds_total"`
		} `json:"db_pool"`
		Commands map[string]struct {
			DB float64 `json:"db_seconds_total"`
		} `json:"commands"`
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatalf("stats JSON: %v\n%s", err, body)
	}
	var sum float64
	for _, c := range st.Commands {
		sum += c.DB
	}
	if math.Abs(st.DBPool.SQL-2) > 1e-9 || math.Abs(sum-st.DBPool.SQL) > 1e-9 {
		t.Errorf("sql_seconds_total %v, commands' db_seconds_total sum %v; want both 2", st.DBPool.SQL, sum)
	}
}
