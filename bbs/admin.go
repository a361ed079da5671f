package bbs

import (
	"crypto/subtle"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"time"

	"bbslab/entity"
	"bbslab/machine"
)

// maxResetPosts bounds /admin/reset?posts=N.
const maxResetPosts = 10_000_000

// guardAdmin wraps an admin handler: cross-site requests that change
// state are refused, then the admin token is required when one is set.
func guardAdmin(token string, h http.Handler) http.Handler {
	return refuseCrossSite(requireToken(token, h))
}

// refuseCrossSite refuses a POST, PUT, PATCH or DELETE that a browser sent
// on behalf of another site. Without it any page open in the browser of
// someone on the admin machine could wipe the board: a POST with no body,
// or a form or text/plain one, is a CORS "simple request" that the browser
// sends without asking the server first. net/http's CrossOriginProtection
// rejects a request whose Sec-Fetch-Site header is cross-site or same-site
// or, when that header is missing, whose Origin names another host than
// the request's; tools such as curl, loadtest and Go's http.Client send
// neither header and pass, as do GET, HEAD and OPTIONS.
func refuseCrossSite(h http.Handler) http.Handler {
	p := http.NewCrossOriginProtection()
	p.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusForbidden, jsonError{Status: http.StatusForbidden,
			Error: "cross-site request refused: the admin endpoints change state only for requests from the admin page itself or from a tool such as curl (a browser's Sec-Fetch-Site or Origin header named another site)"})
	}))
	return p.Handler(h)
}

// requireToken guards h with the admin token when one is set. The token
// is read from the Authorization header only: a ?token= query parameter
// would put it in URLs, shell histories, browser histories and logs, so a
// request that tries one is told to use the header instead.
func requireToken(token string, h http.Handler) http.Handler {
	if token == "" {
		return h
	}
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), want) != 1 {
			msg := "admin token required: send the header Authorization: Bearer TOKEN"
			if !ok && r.URL.Query().Has("token") {
				msg = "the ?token= query parameter is not accepted (it would end up in URLs and logs): send the header Authorization: Bearer TOKEN"
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="bbs admin"`)
			writeJSON(w, http.StatusUnauthorized, jsonError{Status: 401, Error: msg})
			return
		}
		h.ServeHTTP(w, r)
	})
}

func (s *Server) handleAdminIndex(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprint(w, "bbs admin\n\nGET  /healthz\nGET  /readyz\nGET  /admin/stats\nPOST /admin/reset?posts=N\n")
	fmt.Fprint(w, debugIndex)
}

// handleHealthz answers 200 while the process is up, also while start-up
// waits for the database (starting.go).
func handleHealthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintln(w, "ok")
}

// readiness is the body of /readyz.
type readiness struct {
	Ready    bool   `json:"ready"`
	Database string `json:"database"`
	Reason   string `json:"reason,omitempty"`
}

// handleReadyz answers 200 when the pool is filled and the database answers.
func (s *Server) handleReadyz(w http.ResponseWriter, r *http.Request) {
	out := readiness{Ready: true, Database: "ok"}
	if err := s.ping(r.Context()); err != nil {
		out = readiness{Database: "unreachable", Reason: "the database does not answer"}
	} else if s.warming.Load() {
		out = readiness{Database: "ok", Reason: "starting: the warm-up pass is running"}
	} else if !s.ready.Load() {
		out = readiness{Database: "ok", Reason: "starting: the pool is not filled yet"}
	}
	code := http.StatusOK
	if !out.Ready {
		code = http.StatusServiceUnavailable
	}
	writeJSON(w, code, out)
}

// handleReset restores the deterministic seed of ?posts=N posts.
func (s *Server) handleReset(w http.ResponseWriter, r *http.Request) {
	n := s.opt.SeedPosts
	if v := r.URL.Query().Get("posts"); v != "" {
		var err error
		n, err = strconv.Atoi(v)
		if err != nil || n < 0 || n > maxResetPosts {
			writeJSON(w, http.StatusBadRequest, jsonError{Status: 400, Error: fmt.Sprintf("posts: %q is not a whole number from 0 to %d", v, maxResetPosts)})
			return
		}
	}
	start := time.Now()
	got, err := s.store.Reset(r.Context(), n)
	if err != nil {
		code, msg := classify(err)
		s.log.Error("reset", "posts", n, "err", err)
		writeJSON(w, code, jsonError{Status: code, Error: "reset failed: " + msg})
		return
	}
	s.log.Info("reset", "posts", got, "seconds", time.Since(start).Seconds())
	writeJSON(w, http.StatusOK, map[string]any{"posts": got, "seconds": time.Since(start).Seconds()})
}

// Stats is the JSON of /admin/stats.
type Stats struct {
	Time          time.Time               `json:"time"`
	UptimeSeconds float64                 `json:"uptime_seconds"`
	Database      DatabaseInfo            `json:"database"`
	Host          machine.HostInfo        `json:"host"` // the server's machine, Go runtime and build
	Ready         bool                    `json:"ready"`
	Workers       WorkerStats             `json:"workers"`
	DBPool        DBPoolStats             `json:"db_pool"`
	Commands      map[string]CommandStats `json:"commands"`
	Responses     ResponseStats           `json:"responses"`
	Goroutines    int                     `json:"goroutines"`
	GC            GCStats                 `json:"gc"` // gcstats.go
	Readings                              // machine, connections, runtime (readings.go)

	// Config is the knobs in force as Options.Config gave them (secrets
	// redacted by the caller); absent when none were given.
	Config any `json:"config,omitempty"`
}

// DatabaseInfo names the database the board runs on: Kind is "sqlite" or
// "postgres"; ServerVersion is SQLite's sqlite_version() or PostgreSQL's
// server_version parameter (empty when the store cannot say).
type DatabaseInfo struct {
	Kind          string `json:"kind"`
	ServerVersion string `json:"server_version,omitempty"`
}

// databaseInfo reads the store's kind and version when it can tell them
// (entity.Versioned), else names Options.DBName alone.
func (s *Server) databaseInfo() DatabaseInfo {
	d := DatabaseInfo{Kind: s.opt.DBName}
	if v, ok := s.opt.Store.(entity.Versioned); ok {
		d.Kind, d.ServerVersion = v.DatabaseKind(), v.ServerVersion()
	}
	return d
}

// DBPoolStats is the pool part of Stats.
type DBPoolStats struct {
	entity.PoolStats
	AcquireWaitSecondsTotal float64 `json:"acquire_wait_seconds_total"` // completed acquires
	// Acquire-waiting and connection-held seconds since start, in-progress
	// ones included: the increase over a span divided by its length is the
	// mean number of acquires waiting and of connections in use over it.
	AcquireWaitingSecondsTotal float64 `json:"acquire_waiting_seconds_total"`
	InUseSecondsTotal          float64 `json:"in_use_seconds_total"`
	// The database at a distance (db_latency, connect_latency): time the
	// statements waited on the network, and the physical opens waited.
	NetworkWaitSecondsTotal float64 `json:"network_wait_seconds_total"`
	ConnectWaitSecondsTotal float64 `json:"connect_wait_seconds_total"`
}

// dbPoolStats adds the seconds of ps's durations.
func dbPoolStats(ps entity.PoolStats) DBPoolStats {
	return DBPoolStats{
		PoolStats:                  ps,
		AcquireWaitSecondsTotal:    ps.AcquireWait.Seconds(),
		AcquireWaitingSecondsTotal: ps.WaitingTime.Seconds(),
		InUseSecondsTotal:          ps.InUseTime.Seconds(),
		NetworkWaitSecondsTotal:    ps.NetworkWait.Seconds(),
		ConnectWaitSecondsTotal:    ps.ConnectWait.Seconds(),
	}
}

// ResponseStats counts answers that were not 200 by kind.
type ResponseStats struct {
	BadRequest int64 `json:"bad_request"`
	Busy       int64 `json:"busy_503"`
	Failed     int64 `json:"failed_500"`
	ClientGone int64 `json:"client_gone"`
}

// Stats reads the server's state now.
func (s *Server) Stats() Stats {
	ps := s.store.Stats()
	return Stats{
		Time:          time.Now().UTC(),
		UptimeSeconds: time.Since(s.started).Seconds(),
		Database:      s.databaseInfo(),
		Host:          s.host,
		Ready:         s.ready.Load(),
		Workers:       s.limit.stats(),
		DBPool:        dbPoolStats(ps),
		Commands:      s.stats.commands(),
		Responses: ResponseStats{
			BadRequest: s.stats.bad.Load(),
			Busy:       s.stats.busy.Load(),
			Failed:     s.stats.failed.Load(),
			ClientGone: s.stats.clientGone.Load(),
		},
		Goroutines: runtime.NumGoroutine(),
		GC:         ReadGCStats(),
		Readings:   s.readings(),
		Config:     s.opt.Config,
	}
}

func (s *Server) handleStats(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.Stats())
}
