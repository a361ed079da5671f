// Package yardstick is a measuring device, not a second board:
//
//	y, err := yardstick.Open(ctx, "sqlite", "bbs.db", 5)
//	defer y.Close()
//	http.Serve(ln, y.Handler()) // /bbs?cmd=AllView&format=json
//
// It serves bare net/http handlers that answer the board's three views
// (AllView, OnceGetView, EachGetView) as HTML or JSON with the same SQL, the
// same access pattern and the same bytes as the board, and with none of
// its machinery (no worker limit, no metrics or tally, no extra headers, no
// timeouts, no posting).
//
// It exists so that the board's own overhead can be measured: served side
// by side on the same database and the same CPU, the ratio of the board's
// CPU per request to the yardstick's is what the board costs beyond its
// SQL ("loadtest overhead"). TechEmpower keeps a "raw" implementation next
// to every framework for the same comparison. The handlers talk to
// database/sql with go-sqlite3 and to pgxpool directly, as a hand-written
// handler would, and never to the board's entity package. The database must
// already hold the board's posts table (start the board on it first: it
// migrates and seeds).
package yardstick

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// DefaultN is the number of posts shown when a request has no n, as on
// the board (its page size).
const DefaultN = 30

// MaxN is the largest n a request may ask for, as on the board.
const MaxN = 500

// Commands are the views the yardstick answers, in the board's order.
var Commands = []string{"AllView", "OnceGetView", "EachGetView"}

// A Post is one row of the posts table, with the JSON field names and
// order of the board's answer.
type Post struct {
	No        int64     `json:"no"`
	Name      string    `json:"name"`
	Message   string    `json:"message"`
	CreatedAt time.Time `json:"created_at"`
}

// source reads posts with the board's three access patterns.
type source interface {
	// all reads the n newest posts in one query on one connection.
	all(ctx context.Context, n int) ([]Post, error)
	// once takes one connection and runs one single-row query per post.
	once(ctx context.Context, n int) ([]Post, error)
	// each takes a connection for each single-row query and gives it back.
	each(ctx context.Context, n int) ([]Post, error)
	close()
}

// Yardstick serves the bare handlers over one database.
type Yardstick struct {
	src source
}

// Open connects to the database db ("sqlite" or "postgres") at dsn with a
// pool of pool connections, all opened before it returns (min = max), and
// checks that the posts table is there.
func Open(ctx context.Context, db, dsn string, pool int) (*Yardstick, error) {
	if pool < 1 {
		return nil, fmt.Errorf("yardstick: pool %d: want at least 1", pool)
	}
	if dsn == "" {
		return nil, fmt.Errorf("yardstick: empty DSN")
	}
	var (
		src source
		err error
	)
	switch db {
	case "sqlite":
		src, err = openSQLite(ctx, dsn, pool)
	case "postgres":
		src, err = openPostgres(ctx, dsn, pool)
	default:
		return nil, fmt.Errorf("yardstick: database %q: want sqlite or postgres", db)
	}
	if err != nil {
		return nil, fmt.Errorf("yardstick: %w", err)
	}
	return &Yardstick{src: src}, nil
}

// Close closes the database connections.
func (y *Yardstick) Close() { y.src.close() }

// Posts runs the command cmd for n posts, as the handler does.
func (y *Yardstick) Posts(ctx context.Context, cmd string, n int) ([]Post, error) {
	switch cmd {
	case "AllView":
		return y.src.all(ctx, n)
	case "OnceGetView":
		return y.src.once(ctx, n)
	case "EachGetView":
		return y.src.each(ctx, n)
	}
	return nil, fmt.Errorf("unknown command %q: want AllView, OnceGetView or EachGetView", cmd)
}

// Handler returns the handler of GET /bbs?cmd=C&format=json|html&n=N:
// cmd defaults to AllView, format to html and n to DefaultN.
func (y *Yardstick) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /bbs", y.serve)
	return mux
}

func (y *Yardstick) serve(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	cmd := q.Get("cmd")
	if cmd == "" {
		cmd = "AllView"
	}
	n := DefaultN
	if s := q.Get("n"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 || v > MaxN {
			http.Error(w, fmt.Sprintf("n %q: want a whole number from 1 to %d", s, MaxN), http.StatusBadRequest)
			return
		}
		n = v
	}
	format := q.Get("format")
	if format != "" && format != "json" && format != "html" {
		http.Error(w, fmt.Sprintf("format %q: want json or html", format), http.StatusBadRequest)
		return
	}
	if !known(cmd) {
		http.Error(w, fmt.Sprintf("cmd %q: want AllView, OnceGetView or EachGetView", cmd), http.StatusBadRequest)
		return
	}
	start := time.Now()
	posts, err := y.Posts(r.Context(), cmd, n)
	c := commandCost(cmd, n, len(posts), time.Since(start))
	if err != nil {
		http.Error(w, "database error: "+err.Error(), http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	if format == "json" {
		// The board's answer: {"command":...,"posts":[...],"cost":{...}}
		// and a newline, HTML-escaped as json.Encoder does by default.
		err = json.NewEncoder(&buf).Encode(struct {
			Command string    `json:"command"`
			Posts   []Post    `json:"posts"`
			Cost    *jsonCost `json:"cost"`
		}{cmd, posts, c.json()})
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
	} else {
		err = writePage(&buf, cmd, posts, c)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
	}
	if err != nil {
		http.Error(w, "render: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.Write(buf.Bytes())
}

func known(cmd string) bool {
	for _, c := range Commands {
		if c == cmd {
			return true
		}
	}
	return false
}

// Statements returns the SQL statements the yardstick sends on db
// ("sqlite" or "postgres"), for a test to compare with the board's.
func Statements(db string) []string {
	switch db {
	case "sqlite":
		return []string{sqliteNewest, sqliteBefore}
	case "postgres":
		return []string{pgNewest, pgBefore}
	}
	return nil
}
