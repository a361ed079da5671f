package yardstick

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// cost is the yardstick's stand-in for the cost line and the "cost" object
// the board adds to every answer, so that both send the same bytes for the
// same request. The yardstick measures nothing but the request's total
// (one clock reading): it has no worker limit, pool meter or SQL timer, so
// queue, acquire, db and net are zero. Its counts are those of the command.
type cost struct {
	queries, acquires int
	total             time.Duration
}

// commandCost returns what cmd sent for n posts when got came back: the
// post-by-post commands send one statement per post, and one more that
// finds nothing when the database holds fewer than n.
func commandCost(cmd string, n, got int, total time.Duration) cost {
	q := min(n, got+1)
	switch cmd {
	case "OnceGetView":
		return cost{queries: q, acquires: 1, total: total}
	case "EachGetView":
		return cost{queries: q, acquires: q, total: total}
	}
	return cost{queries: 1, acquires: 1, total: total}
}

func ms(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 3, 64) }

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// Line is the board's cost line in the board's words and format.
func (c cost) Line() string {
	return plural(c.queries, "query", "queries") + " on " + plural(c.acquires, "connection", "connections") +
		", " + ms(c.total) + " ms: queue 0.000, acquire 0.000, db 0.000, net 0.000"
}

// jsonCost is the board's JSON cost object.
type jsonCost struct {
	Queries   int     `json:"queries"`
	Acquires  int     `json:"acquires"`
	QueueMS   float64 `json:"queue_ms"`
	AcquireMS float64 `json:"acquire_ms"`
	DBMS      float64 `json:"db_ms"`
	NetMS     float64 `json:"net_ms"`
	TotalMS   float64 `json:"total_ms"`
}

func (c cost) json() *jsonCost {
	return &jsonCost{Queries: c.queries, Acquires: c.acquires, TotalMS: float64(c.total) / 1e6}
}

var costObject = regexp.MustCompile(`,"cost":\{[^}]*\}`)

// WithoutCost returns body without its cost line (a page's line starting
// with <p class="cost") or its JSON cost object: the part of an answer
// that carries each server's own timings. What is left is the same bytes
// from the board and the yardstick.
func WithoutCost(body string) string {
	body = costObject.ReplaceAllString(body, "")
	lines := strings.SplitAfter(body, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if !strings.HasPrefix(l, `<p class="cost"`) {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "")
}
