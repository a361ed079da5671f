package bbs

import (
	"strconv"
	"strings"
	"time"

	"bbslab/commands"
)

// A cost is what one board request cost: the X-BBS-Queries and
// X-BBS-Acquires counts and the Server-Timing durations. The board's
// headers and its page's cost line are both written from one cost, the
// request's record's (observe.go), so the page teaches exactly what the
// headers say and the stats and metrics count.
type cost struct {
	commands.Tally               // Queries, Acquires, AcquireWait, SQLTime, NetworkWait: as the store timed them
	QueueWait      time.Duration // waiting for a worker, as the limiter timed it
	Total          time.Duration // the request until its cost was taken, just before rendering
}

// ms formats d in milliseconds with three decimals, as Server-Timing
// carries it.
func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/1e6, 'f', 3, 64)
}

// serverTiming formats the Server-Timing header in milliseconds: the wait
// for a worker, for connections, the time in SQL statements and the part of
// it waited on the network (db_latency), and the whole request.
//
// It appends into one buffer (the same strconv format as ms) rather than
// concatenating five formatted strings: one allocation instead of six.
func (c cost) serverTiming() string {
	var sb strings.Builder
	sb.Grow(128)
	var num [32]byte
	add := func(name string, d time.Duration) {
		sb.WriteString(name)
		sb.Write(strconv.AppendFloat(num[:0], float64(d)/1e6, 'f', 3, 64))
	}
	add("queue;dur=", c.QueueWait)
	add(", acquire;dur=", c.AcquireWait)
	add(", db;dur=", c.SQLTime)
	add(", net;dur=", c.NetworkWait)
	add(", total;dur=", c.Total)
	return sb.String()
}

// Line is the page's cost line, e.g. "30 queries on 30 connections,
// 0.540 ms: queue 0.000, acquire 0.060, db 0.450, net 0.000": the counts
// of X-BBS-Queries and X-BBS-Acquires and the durations of Server-Timing,
// formatted alike. Total is the time until just before rendering, as in
// the header; rendering and writing the page come after it.
func (c cost) Line() string {
	var b strings.Builder
	b.WriteString(plural(c.Queries, "query", "queries"))
	b.WriteString(" on ")
	b.WriteString(plural(c.Acquires, "connection", "connections"))
	b.WriteString(", ")
	b.WriteString(ms(c.Total))
	b.WriteString(" ms: queue ")
	b.WriteString(ms(c.QueueWait))
	b.WriteString(", acquire ")
	b.WriteString(ms(c.AcquireWait))
	b.WriteString(", db ")
	b.WriteString(ms(c.SQLTime))
	b.WriteString(", net ")
	b.WriteString(ms(c.NetworkWait))
	return b.String()
}

// plural writes n with the word's singular or plural.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// jsonCost is the cost object of a JSON answer, durations in milliseconds.
type jsonCost struct {
	Queries   int     `json:"queries"`
	Acquires  int     `json:"acquires"`
	QueueMS   float64 `json:"queue_ms"`
	AcquireMS float64 `json:"acquire_ms"`
	DBMS      float64 `json:"db_ms"`
	NetMS     float64 `json:"net_ms"`
	TotalMS   float64 `json:"total_ms"`
}

// json returns c as a JSON answer carries it; nil for nil.
func (c *cost) json() *jsonCost {
	if c == nil {
		return nil
	}
	f := func(d time.Duration) float64 { return float64(d) / 1e6 }
	return &jsonCost{Queries: c.Queries, Acquires: c.Acquires, QueueMS: f(c.QueueWait),
		AcquireMS: f(c.AcquireWait), DBMS: f(c.SQLTime), NetMS: f(c.NetworkWait), TotalMS: f(c.Total)}
}
