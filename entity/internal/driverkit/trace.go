package driverkit

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"bbslab/entity"
	"bbslab/occupancy"
)

// A Tracer writes one JSON line per SQL statement a Conn runs (entity.Options.Trace):
//
//	{"time":"2026-11-30T04:50:00.123456Z","db":"sqlite","statement":"SELECT ...","query_time":0.000041,"rows":30}
//
// time is when the statement began, query_time is in seconds (the network
// wait of a database at a distance included; network_wait is that part), rows is the
// rows it returned or stored (0 on error), and error is present when it failed, naming
// only the kind ("unavailable", "canceled", "error"): a driver message could
// repeat user input. A nil *Tracer does nothing, so the
// trace costs one nil check when off.
type Tracer struct {
	db string
	mu sync.Mutex
	w  io.Writer
}

// NewTracer returns a Tracer writing to w for database db ("sqlite" or
// "postgres"), or nil when w is nil.
func NewTracer(w io.Writer, db string) *Tracer {
	if w == nil {
		return nil
	}
	return &Tracer{db: db, w: w}
}

// traceLine is one line of the SQL trace.
type traceLine struct {
	Time      time.Time `json:"time"`
	DB        string    `json:"db"`
	Statement string    `json:"statement"`
	QueryTime float64   `json:"query_time"`
	Rows      int       `json:"rows"`
	// NetworkWait is the part of QueryTime spent waiting on the network
	// (entity.Options.Distance), in seconds; absent when the database is near.
	NetworkWait float64 `json:"network_wait,omitempty"`
	Error       string  `json:"error,omitempty"`
}

// Statement records a statement that began at start, took took (the
// Conn's figure for it, ConnMeter.End), waited net of it on the network
// and returned rows rows.
func (t *Tracer) Statement(start occupancy.Stamp, took time.Duration, stmt string, rows int, net time.Duration, err error) {
	if t == nil {
		return
	}
	l := traceLine{Time: start.Time().UTC(), DB: t.db, Statement: stmt, QueryTime: took.Seconds(), Rows: rows, NetworkWait: net.Seconds()}
	if err != nil {
		l.Rows = 0
		if !noRows(err) {
			l.Error = errorKind(err)
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep "<" readable in statements
	if enc.Encode(l) != nil {
		return
	}
	t.mu.Lock()
	t.w.Write(buf.Bytes())
	t.mu.Unlock()
}

// errorKind names an error for the trace without a driver message, which
// could repeat user input.
func errorKind(err error) string {
	switch {
	case errors.Is(err, entity.ErrUnavailable):
		return "unavailable"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "canceled"
	default:
		return "error"
	}
}

// noRows reports whether err only says that no row matched. pgx's
// ErrNoRows matches sql.ErrNoRows too (pgx v5 declares it as a proxy of
// sql.ErrNoRows "to aid in database/sql compatibility"), so one check
// serves both drivers.
func noRows(err error) bool {
	return errors.Is(err, entity.ErrNotFound) || errors.Is(err, sql.ErrNoRows)
}
