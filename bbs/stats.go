package bbs

import (
	"sync/atomic"
	"time"

	"bbslab/commands"
)

// stats counts requests and their work per command.
type stats struct {
	byCmd      map[string]*cmdStats
	clientGone atomic.Int64
	bad        atomic.Int64 // 4xx answers
	busy       atomic.Int64 // 503 answers
	failed     atomic.Int64 // 500 answers
}

type cmdStats struct {
	requests    atomic.Int64
	errors      atomic.Int64
	queries     atomic.Int64
	acquires    atomic.Int64
	acquireWait atomic.Int64 // ns
	sqlTime     atomic.Int64 // ns
	networkWait atomic.Int64 // ns, part of sqlTime
}

func newStats(views []*commands.View) *stats {
	s := &stats{byCmd: make(map[string]*cmdStats, len(views))}
	for _, v := range views {
		s.byCmd[v.Name()] = new(cmdStats)
	}
	return s
}

func (s *stats) record(cmd string, t commands.Tally, ok bool) {
	c := s.byCmd[cmd]
	if c == nil {
		return
	}
	c.requests.Add(1)
	if !ok {
		c.errors.Add(1)
	}
	c.queries.Add(int64(t.Queries))
	c.acquires.Add(int64(t.Acquires))
	c.acquireWait.Add(int64(t.AcquireWait))
	c.sqlTime.Add(int64(t.SQLTime))
	c.networkWait.Add(int64(t.NetworkWait))
}

func (s *stats) status(code int) {
	switch {
	case code == 503:
		s.busy.Add(1)
	case code >= 500:
		s.failed.Add(1)
	case code >= 400:
		s.bad.Add(1)
	}
}

// CommandStats is the work of one command since start.
type CommandStats struct {
	Requests                int64   `json:"requests"`
	Errors                  int64   `json:"errors"`
	Queries                 int64   `json:"queries"`
	Acquires                int64   `json:"acquires"`
	AcquireWaitSecondsTotal float64 `json:"acquire_wait_seconds_total"`
	DBSecondsTotal          float64 `json:"db_seconds_total"`
	NetworkWaitSecondsTotal float64 `json:"network_wait_seconds_total"` // part of db_seconds_total
}

func (s *stats) commands() map[string]CommandStats {
	out := make(map[string]CommandStats, len(s.byCmd))
	for name, c := range s.byCmd {
		out[name] = CommandStats{
			Requests:                c.requests.Load(),
			Errors:                  c.errors.Load(),
			Queries:                 c.queries.Load(),
			Acquires:                c.acquires.Load(),
			AcquireWaitSecondsTotal: time.Duration(c.acquireWait.Load()).Seconds(),
			DBSecondsTotal:          time.Duration(c.sqlTime.Load()).Seconds(),
			NetworkWaitSecondsTotal: time.Duration(c.networkWait.Load()).Seconds(),
		}
	}
	return out
}

// dbSeconds is the time in SQL of all commands so far, in seconds.
func (s *stats) dbSeconds() float64 {
	var ns int64
	for _, c := range s.byCmd {
		ns += c.sqlTime.Load()
	}
	return time.Duration(ns).Seconds()
}
