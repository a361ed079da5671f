package bbs

import (
	"encoding/json"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"bbslab/commands"
)

// timings parses a Server-Timing header into its durations by name, as
// the header writes them.
func timings(t *testing.T, header string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, part := range strings.Split(header, ", ") {
		name, dur, ok := strings.Cut(part, ";dur=")
		if !ok {
			t.Fatalf("Server-Timing %q: part %q has no dur", header, part)
		}
		out[name] = dur
	}
	for _, name := range []string{"queue", "acquire", "db", "net", "total"} {
		if _, ok := out[name]; !ok {
			t.Fatalf("Server-Timing %q lacks %s", header, name)
		}
	}
	return out
}

var costLine = regexp.MustCompile(`<p class="cost"[^>]*>This page cost ([^<]*)</p>`)

// TestCostLineMatchesHeaders checks, for each command, viewing and
// posting, that the page's cost line says what the response's
// X-BBS-Queries, X-BBS-Acquires and Server-Timing headers say, and that
// the JSON answer's cost object carries the same figures.
func TestCostLineMatchesHeaders(t *testing.T) {
	_, _, ts := newTest(t, Options{})
	noun := func(n, one, many string) string {
		if n == "1" {
			return n + " " + one
		}
		return n + " " + many
	}
	for _, cmd := range []string{"AllView", "OnceGetView", "EachGetView"} {
		for _, posting := range []bool{false, true} {
			form := url.Values{"cmd": {cmd}}
			if posting {
				form.Set("name", "cost")
				form.Set("message", "what did this cost?")
			}
			resp, body := post(t, ts.URL+"/bbs", form)
			if resp.StatusCode != 200 {
				t.Fatalf("%s (posting %v): %d %s", cmd, posting, resp.StatusCode, body)
			}
			q, a := counts(resp)
			st := timings(t, resp.Header.Get("Server-Timing"))
			want := noun(q, "query", "queries") + " on " + noun(a, "connection", "connections") + ", " + st["total"] +
				" ms: queue " + st["queue"] + ", acquire " + st["acquire"] + ", db " + st["db"] + ", net " + st["net"]
			m := costLine.FindStringSubmatch(body)
			if m == nil {
				t.Errorf("%s (posting %v): page has no cost line", cmd, posting)
				continue
			}
			if m[1] != want {
				t.Errorf("%s (posting %v): cost line %q; the headers say %q", cmd, posting, m[1], want)
			}
			if q == "0" || a == "0" {
				t.Errorf("%s (posting %v): X-BBS-Queries %s, X-BBS-Acquires %s; want a command that ran", cmd, posting, q, a)
			}

			form.Set("format", "json")
			resp, body = post(t, ts.URL+"/bbs", form)
			var got struct {
				Cost *jsonCost `json:"cost"`
			}
			if err := json.Unmarshal([]byte(body), &got); err != nil || got.Cost == nil {
				t.Fatalf("%s JSON (posting %v): cost missing (%v): %s", cmd, posting, err, body)
			}
			q, a = counts(resp)
			st = timings(t, resp.Header.Get("Server-Timing"))
			f := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
			c := got.Cost
			gotJSON := []string{strconv.Itoa(c.Queries), strconv.Itoa(c.Acquires), f(c.QueueMS), f(c.AcquireMS), f(c.DBMS), f(c.NetMS), f(c.TotalMS)}
			wantJSON := []string{q, a, st["queue"], st["acquire"], st["db"], st["net"], st["total"]}
			if strings.Join(gotJSON, " ") != strings.Join(wantJSON, " ") {
				t.Errorf("%s JSON (posting %v): cost %v; the headers say %v", cmd, posting, gotJSON, wantJSON)
			}
		}
	}
}

// TestCostLineWording checks the singular and plural of the line.
func TestCostLineWording(t *testing.T) {
	for _, c := range []struct {
		cost cost
		want string
	}{
		{cost{Tally: commands.Tally{Queries: 1, Acquires: 1, SQLTime: 450_000, AcquireWait: 60_000}, Total: 540_000},
			"1 query on 1 connection, 0.540 ms: queue 0.000, acquire 0.060, db 0.450, net 0.000"},
		{cost{Tally: commands.Tally{Queries: 30, Acquires: 30, NetworkWait: 1_234_567}, Total: 2_500_000, QueueWait: 1_000},
			"30 queries on 30 connections, 2.500 ms: queue 0.001, acquire 0.000, db 0.000, net 1.235"},
	} {
		if got := c.cost.Line(); got != c.want {
			t.Errorf("%+v.Line() = %q; want %q", c.cost, got, c.want)
		}
	}
}
