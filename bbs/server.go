// Package bbs serves the board over HTTP:
//
//	srv := bbs.New(bbs.Options{Store: store, Workers: 5, Queue: 100})
//	go http.Serve(pub, srv.Handler())      // the board: /bbs
//	go http.Serve(adm, srv.AdminHandler()) // /healthz, /readyz, /admin/stats, /metrics, /debug/pprof/
//	srv.SetReady(true)
//
// It is the board's web layer: the handlers that choose a command (package
// commands) and render its page or JSON, the worker limit in front of them,
// and the admin listener's health, readiness, reset, statistics, metrics
// and profiles. cmd/bbs builds the Options from its configuration.
package bbs

import (
	"cmp"
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"time"

	"bbslab/behave"
	"bbslab/commands"
	"bbslab/entity"
	"bbslab/knob"
	"bbslab/machine"
	"bbslab/truth"
)

// Options configures a Server.
type Options struct {
	Store          entity.Store
	PageSize       int           // posts shown when a request has no n
	SeedPosts      int           // posts a reset without ?posts= restores
	Workers        int           // requests running a command at once; 0 = unlimited
	Queue          int           // requests that may wait for a worker
	QueueTimeout   time.Duration // how long one may wait
	RequestTimeout time.Duration // deadline of one command, SQL included
	AdminToken     string        // when set, required on every admin path
	DBName         string        // "sqlite" or "postgres", for the page and stats
	WriteChunks    int           // 0: one write per HTML page; N: N flushed pieces (chunks.go)
	Logger         *slog.Logger
	// Config is shown as "config" in /admin/stats: the knobs in force, any
	// secret already redacted (config.Config.Redacted).
	Config any
	// Cmdline is served at /debug/pprof/cmdline in place of os.Args, which
	// may hold a DSN password or the admin token: the caller hands a
	// redacted copy (config.RedactArgs). When nil only the program name is
	// served.
	Cmdline []string

	// Instruments: what the server shows of itself (system.go, observe.go).
	AccessLog  io.Writer        // when set, one alp JSON line per public request
	Machine    *machine.Sampler // when set, /admin/stats shows machine CPU, paging, load, memory
	ServerPort int              // public port, for its TCP states in /admin/stats; 0 = unknown
	DBPort     int              // database server's TCP port, for its TCP states; 0 = none

	// Behaviour on demand and the server's truth (behaviour.go, truth.go).
	// The caller that serves the public listener creates them, to hook
	// them into the listener too (truth.Listener and truth.ConnContext); nil: New makes ones with nothing
	// set, which then see no arrivals and no accepts.
	Behaviour *behave.Behaviour
	Truth     *truth.Recorder
	TruthLog  bool // a truth window keeps the per-request log unless its start says ?log=0
	// TruthDir is the one directory an admin request may write into (a
	// truth window's stop, ?file=NAME); nil: none, and ?file= is refused.
	TruthDir *truth.Dir
	// TruthFile is a file name in TruthDir every stop writes its report
	// to, replacing it; "" none unless ?file=.
	TruthFile string
}

// Server serves the board and its admin endpoints.
type Server struct {
	opt     Options
	store   entity.Store
	limit   *limiter
	stats   *stats
	log     *slog.Logger
	ready   atomic.Bool
	warming atomic.Bool // a warm-up pass is running (warmup.go)
	started time.Time
	host    machine.HostInfo // read once: the facts do not change while it runs

	metrics   *metrics
	accessLog *accessLog // nil when off
	behave    *behave.Behaviour
	truth     *truth.Recorder
	knobs     knobState // changes through /admin/knobs (knobs.go)
}

// New returns a Server for opt. It reports ready once SetReady(true) is
// called.
func New(opt Options) *Server {
	opt.PageSize = cmp.Or(opt.PageSize, int(knob.Board.Get("page_size").Default))
	opt.QueueTimeout = cmp.Or(opt.QueueTimeout, time.Duration(knob.Board.Get("queue_timeout").Default))
	opt.RequestTimeout = cmp.Or(opt.RequestTimeout, time.Duration(knob.Board.Get("request_timeout").Default))
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		opt:     opt,
		store:   opt.Store,
		limit:   newLimiter(opt.Workers, opt.Queue, opt.QueueTimeout),
		stats:   newStats(commands.Views),
		log:     opt.Logger,
		started: time.Now(),
		host:    machine.Host(),
		knobs:   newKnobState(),
	}
	s.behave, s.truth = opt.Behaviour, opt.Truth
	if s.behave == nil {
		s.behave = behave.New(behave.Settings{})
	}
	if s.truth == nil {
		s.truth = truth.New(0)
	}
	s.metrics = newMetrics(s)
	s.store = observedStore{Store: s.store, wait: s.metrics.acquireWait}
	if opt.AccessLog != nil {
		s.accessLog = &accessLog{w: opt.AccessLog}
	}
	return s
}

// SetReady marks the server ready (or not) for /readyz.
func (s *Server) SetReady(ok bool) { s.ready.Store(ok) }

// ping checks the database within a second.
func (s *Server) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	return s.store.Ping(ctx)
}
