package bbs

import (
	"crypto/subtle"
	"fmt"
	"net/http"
	"runtime"
	rpprof "runtime/pprof"
	"slices"
	"strings"
	"time"

	"bbslab/entity"
	"bbslab/knob"
	"bbslab/machine"
)

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

// adminDocs says in one line what each admin route answers, by the
// pattern it is registered with (routes.go, debug.go).
var adminDocs = map[string]string{
	"GET /healthz":            "200 ok while the process is up, also while start-up waits for the database.",
	"GET /readyz":             "JSON: 200 when the pool is filled and the database answers, else 503 with the reason.",
	"POST /admin/reset":       "Restores the deterministic seed of ?posts=N posts (default: the configured seed). POST only, e.g. curl -X POST 'ADDR/admin/reset?posts=1000'.",
	"/admin/distance":         "JSON: each SQL statement's wait in force (db_latency ± db_latency_jitter); a POST sets it from now on, as loadtest calibrate does, e.g. curl -X POST 'ADDR/admin/distance?db_latency=1.2ms'.",
	"/admin/knobs":            "JSON: workers, queue, queue_timeout, pool and pool_min in force and when they took effect; a POST sets those given while the board runs (new connections opened before they count, removed ones closed when given back), e.g. curl -X POST 'ADDR/admin/knobs?workers=8&pool=8'.",
	"/admin/behaviour":        "JSON: the behaviour knobs in force (stall_every, stall_for, delay, error_status, error_share, size) and recent stalls; a POST sets those given, stall_now=D stalls now, e.g. curl -X POST 'ADDR/admin/behaviour?stall_now=1s'.",
	"POST /admin/truth/start": "Opens a truth window from now (or ?at= until ?until=, RFC 3339; ?log=1 keeps a per-request log): the board records every request it serves.",
	"POST /admin/truth/stop":  "Closes the truth window and answers its truth as JSON; ?file=NAME also writes it into truth_dir (a plain file name; &replace=1 replaces an existing one; the database's files never).",
	"GET /admin/truth":        "JSON: the truth of the current or last window: requests, bytes, statuses, per second, server and service times, stalls.",
	"GET /admin/truth/log":    "JSON lines: one per request of the window (when it keeps a log).",
	"GET /admin/stats":        "JSON: workers and queue, DB pool and its waits, each command's queries and acquires, answers by kind, GC, machine, connections, runtime, config.",
	"/debug/pprof/":           "pprof's index of the runtime profiles listed below (?debug=1 for text).",
	"/debug/pprof/cmdline":    "The command line, secrets redacted, NUL-separated.",
	"/debug/pprof/profile":    "CPU profile over ?seconds=N (default 30): go tool pprof ADDR/debug/pprof/profile.",
	"/debug/pprof/symbol":     "Looks up program counters for pprof.",
	"/debug/pprof/trace":      "Execution trace over ?seconds=N (default 1): go tool trace.",
	"GET /debug/fgprof":       "Wall-clock profile, on- and off-CPU, over ?seconds=N (default 30; format=folded for flame graphs): shows pool and SQL waits.",
	"GET /debug/goroutines":   "Goroutine dump, identical stacks grouped, after a count of requests by what they wait for (also written to stderr on SIGUSR1).",
	"GET /metrics":            "Prometheus text format: requests, latencies, workers, pool, runtime.",
}

// profileDocs says what each runtime/pprof profile holds; a profile not
// named here is listed without a line.
var profileDocs = map[string]string{
	"allocs":       "Every allocation since the start, sampled.",
	"block":        "Where goroutines blocked on channels, locks and pool waits (when the block profile rate is set).",
	"goroutine":    "Stacks of all goroutines (?debug=1 grouped; debug=2 stops the world for the whole dump).",
	"heap":         "Live heap allocations, sampled (?gc=1 collects first).",
	"mutex":        "Holders of contended mutexes (when the mutex profile fraction is set).",
	"threadcreate": "Stacks that created OS threads.",
}

// adminEntry is one line of the admin index page.
type adminEntry struct {
	Method string // GET, POST, or "" for any
	Path   string
	Link   bool // safe to follow from the page: answers GET
	What   string
}

// adminIndex is what the admin index template shows.
type adminIndex struct {
	Routes   []adminEntry
	Profiles []adminEntry
	Token    bool
}

// adminEntries turns registered patterns ("GET /x", "/y") into the page's lines.
func adminEntries(patterns []string) []adminEntry {
	out := make([]adminEntry, 0, len(patterns))
	for _, p := range patterns {
		method, path, ok := strings.Cut(p, " ")
		if !ok {
			method, path = "", p
		}
		out = append(out, adminEntry{Method: method, Path: path, Link: method == "" || method == http.MethodGet, What: adminDocs[p]})
	}
	return out
}

// handleAdminIndex answers the admin listener's / with an HTML page that
// links every route registered on it (patterns, as registered) with a line
// on what each answers, then each runtime profile under /debug/pprof/.
func (s *Server) handleAdminIndex(patterns []string) http.HandlerFunc {
	page := adminIndex{Routes: adminEntries(patterns), Token: s.opt.AdminToken != ""}
	for _, p := range rpprof.Profiles() {
		page.Profiles = append(page.Profiles, adminEntry{Method: http.MethodGet, Path: "/debug/pprof/" + p.Name(), Link: true, What: profileDocs[p.Name()]})
	}
	slices.SortFunc(page.Profiles, func(a, b adminEntry) int { return strings.Compare(a.Path, b.Path) })
	return func(w http.ResponseWriter, r *http.Request) {
		s.writeHTML(w, http.StatusOK, "admin.html", page)
	}
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
		p, err := knob.Board.Get("seed_posts").ParseLive(v) // the seed's bounds
		if err != nil {
			writeJSON(w, http.StatusBadRequest, jsonError{Status: 400, Error: "posts: " + err.Error()})
			return
		}
		n = int(p)
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
	GC            GCStats                 `json:"gc"`    // gcstats.go
	Knobs         KnobStats               `json:"knobs"` // knobs.go: workers, queue and pool in force, when they took effect
	SystemStats                           // machine, connections, runtime (system.go)

	// Config is the knobs as Options.Config gave them at the start
	// (secrets redacted by the caller); absent when none were given. Knobs
	// holds those /admin/knobs may have changed since.
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
	// DBLatencySeconds is each statement's wait in force now (db_latency,
	// or what /admin/distance last set).
	DBLatencySeconds float64 `json:"db_latency_seconds"`
	// ValidationSecondsTotal is the time completed acquires spent
	// validating connections (pool_validate), network wait included: part
	// of acquire_wait_seconds_total, as a pool's test on borrow is part of
	// getting a connection.
	ValidationSecondsTotal float64 `json:"validation_seconds_total"`
	// SQLSecondsTotal is the time in SQL statements of all commands (the
	// sum of their db_seconds_total): its increase over a span divided by
	// the span's length is the mean number of requests in SQL. A
	// request's SQL time is counted when the request ends, so a very long
	// statement adds all of its time to the second it ends in.
	SQLSecondsTotal float64 `json:"sql_seconds_total"`
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
		DBLatencySeconds:           ps.Latency.Seconds(),
		ValidationSecondsTotal:     ps.ValidationTime.Seconds(),
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
	pool := dbPoolStats(ps)
	pool.SQLSecondsTotal = s.stats.dbSeconds()
	return Stats{
		Time:          time.Now().UTC(),
		UptimeSeconds: time.Since(s.started).Seconds(),
		Database:      s.databaseInfo(),
		Host:          s.host,
		Ready:         s.ready.Load(),
		Workers:       s.limit.stats(),
		DBPool:        pool,
		Commands:      s.stats.commands(),
		Responses: ResponseStats{
			BadRequest: s.stats.bad.Load(),
			Busy:       s.stats.busy.Load(),
			Failed:     s.stats.failed.Load(),
			ClientGone: s.stats.clientGone.Load(),
		},
		Goroutines:  runtime.NumGoroutine(),
		GC:          ReadGCStats(),
		Knobs:       s.knobStats(),
		SystemStats: s.systemStats(),
		Config:      s.opt.Config,
	}
}

func (s *Server) handleStats(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.Stats())
}
