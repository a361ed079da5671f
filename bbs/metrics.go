package bbs

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"bbslab/commands"
	"bbslab/entity"
)

// metrics are the Prometheus metrics of one Server, in a registry of its
// own (not the global default) so that tests can build several servers.
type metrics struct {
	reg         *prometheus.Registry
	requests    *prometheus.CounterVec   // command, code
	duration    *prometheus.HistogramVec // command
	queueWait   prometheus.Histogram
	acquireWait prometheus.Histogram
	queries     *prometheus.CounterVec // command

	// byCommand holds each command's series (and noCommand's) resolved
	// once: WithLabelValues hashes the labels and takes a lock on every
	// call, which request would otherwise pay three times per request.
	byCommand map[string]*commandMetrics
}

// commandMetrics are one command's series of the labelled metrics.
type commandMetrics struct {
	ok       prometheus.Counter  // bbs_requests_total with code 200
	duration prometheus.Observer // bbs_request_duration_seconds
	queries  prometheus.Counter  // bbs_db_queries_total
}

// latencyBuckets span 50 µs to about 13 s, doubling.
var latencyBuckets = prometheus.ExponentialBuckets(50e-6, 2, 19)

// noCommand labels requests that named no valid command (static files,
// bad input).
const noCommand = "none"

func newMetrics(s *Server) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "bbs_requests_total",
			Help: "Requests on the public listener by command (none when the request named no valid command) and HTTP status.",
		}, []string{"command", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "bbs_request_duration_seconds",
			Help:    "Time from reading the request to the end of the response, by command.",
			Buckets: latencyBuckets,
		}, []string{"command"}),
		queueWait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "bbs_worker_queue_wait_seconds",
			Help:    "Time a command request waited for a worker (0 when one was free); requests rejected at once are not counted.",
			Buckets: append([]float64{0}, latencyBuckets...),
		}),
		acquireWait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "bbs_db_acquire_duration_seconds",
			Help:    "Time each successful connection acquire took, as the store timed it: the figures bbs_db_acquire_wait_seconds_total adds up (and /admin/stats db_pool.acquire_wait_seconds_total).",
			Buckets: latencyBuckets,
		}),
		queries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "bbs_db_queries_total",
			Help: "SQL statements run by command, the insert included.",
		}, []string{"command"}),
	}
	m.byCommand = make(map[string]*commandMetrics, len(commands.Views)+1)
	for _, cmd := range append(commandNames(), noCommand) {
		m.byCommand[cmd] = &commandMetrics{
			ok:       m.requests.WithLabelValues(cmd, "200"),
			duration: m.duration.WithLabelValues(cmd),
			queries:  m.queries.WithLabelValues(cmd),
		}
	}
	m.reg.MustRegister(
		collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(collectors.MetricsScheduler, collectors.MetricsGC)),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.requests, m.duration, m.queueWait, m.acquireWait, m.queries,
		&stateCollector{s: s}, &machineCollector{s: s},
	)
	return m
}

// request records one finished public request from its record.
func (m *metrics) request(q *record, code int) {
	cmd := q.command
	if cmd == "" {
		cmd = noCommand
	}
	cm, ok := m.byCommand[cmd]
	if !ok { // not a command of commands.Views: cannot happen today
		cm = &commandMetrics{ok: m.requests.WithLabelValues(cmd, "200"), duration: m.duration.WithLabelValues(cmd), queries: m.queries.WithLabelValues(cmd)}
	}
	if code == http.StatusOK {
		cm.ok.Inc()
	} else {
		m.requests.WithLabelValues(cmd, strconv.Itoa(code)).Inc()
	}
	cm.duration.Observe(q.duration().Seconds())
	if q.reachedWorker {
		m.queueWait.Observe(q.cost.QueueWait.Seconds())
	}
	if q.cost.Queries > 0 {
		cm.queries.Add(float64(q.cost.Queries))
	}
}

// commandNames lists the names of commands.Views.
func commandNames() []string {
	names := make([]string, len(commands.Views))
	for i, v := range commands.Views {
		names[i] = v.Name()
	}
	return names
}

// stateCollector reads the worker limit and the pool at scrape time.
type stateCollector struct{ s *Server }

var (
	descWorkers      = knobDesc("workers", "Not exported when the limit is off (workers = 0, unlimited).")
	descWorkersBusy  = prometheus.NewDesc("bbs_workers_busy", "Requests running a command now.", nil, nil)
	descQueueLength  = prometheus.NewDesc("bbs_worker_queue_length", "Requests waiting for a worker now.", nil, nil)
	descRejected     = prometheus.NewDesc("bbs_worker_rejected_total", "Requests answered 503 because the queue was full or the wait timed out.", nil, nil)
	descPoolSize     = knobDesc("pool", "")
	descPoolConns    = prometheus.NewDesc("bbs_db_pool_connections", "Open database connections now by state, disjoint: in_use (handed out; in pool_mode none on SQLite database/sql counts one being opened here), idle, opening (being opened). Their sum is the open connections.", []string{"state"}, nil)
	descPoolWaiting  = prometheus.NewDesc("bbs_db_acquires_waiting", "Connection acquires in progress now (waiting for a connection).", nil, nil)
	descAcquires     = prometheus.NewDesc("bbs_db_acquires_total", "Connection acquires completed.", nil, nil)
	descAcquireWait  = prometheus.NewDesc("bbs_db_acquire_wait_seconds_total", "Time completed acquires waited inside the pool (its meter; /admin/stats db_pool.acquire_wait_seconds_total): rate() over rate(bbs_requests_total) is the wait per request.", nil, nil)
	descConnects     = prometheus.NewDesc("bbs_db_connects_total", "Physical database connections opened.", nil, nil)
	descBusySeconds  = prometheus.NewDesc("bbs_workers_busy_seconds_total", "Busy worker-seconds: rate() is the mean number of busy workers.", nil, nil)
	descQueueSeconds = prometheus.NewDesc("bbs_worker_queue_seconds_total", "Queued request-seconds: rate() is the mean queue length.", nil, nil)
	descInUseSeconds = prometheus.NewDesc("bbs_db_connections_in_use_seconds_total", "Connection-held seconds (Acquire to Release): rate() is the mean number of connections in use.", nil, nil)
	descWaitingSecs  = prometheus.NewDesc("bbs_db_acquires_waiting_seconds_total", "Acquire-waiting seconds, in-progress and failed acquires included: rate() is the mean number of acquires waiting.", nil, nil)
	descNetworkWait  = prometheus.NewDesc("bbs_db_network_wait_seconds_total", "Time SQL statements waited on the network of the database at a distance (db_latency).", nil, nil)
	descConnectWait  = prometheus.NewDesc("bbs_db_connect_wait_seconds_total", "Time physical connection opens waited (connect_latency).", nil, nil)
	descQueueLimit   = knobDesc("queue", "Not exported when the worker limit is off.")
	descQueueTimeout = knobDesc("queue_timeout", "In seconds. Not exported when the worker limit is off.")
	descPoolMin      = knobDesc("pool_min", "Equal to bbs_db_pool_size when min = max.")
	descPoolDraining = prometheus.NewDesc("bbs_db_pool_draining", "Connections in use above bbs_db_pool_size since the pool was made smaller: each is closed when given back.", nil, nil)
	descKnobChanges  = prometheus.NewDesc("bbs_knob_changes_total", "Changes of workers, queue, queue_timeout, pool or pool_min through POST /admin/knobs.", nil, nil)
	descKnobsChanged = prometheus.NewDesc("bbs_knobs_changed_timestamp_seconds", "Unix time of the last change through POST /admin/knobs. Not exported before the first.", nil, nil)
	descKnobsInForce = prometheus.NewDesc("bbs_knobs_effective_timestamp_seconds", "Unix time at which the worker and pool settings in force took full effect (the start until a change). Not exported while a change is pending: workers busy or connections in use above a new, smaller limit.", nil, nil)
	stateCollectorDs = []*prometheus.Desc{descWorkers, descWorkersBusy, descQueueLength, descRejected, descPoolSize, descPoolConns, descPoolWaiting, descAcquires, descAcquireWait, descConnects,
		descBusySeconds, descQueueSeconds, descInUseSeconds, descWaitingSecs, descNetworkWait, descConnectWait,
		descQueueLimit, descQueueTimeout, descPoolMin, descPoolDraining, descKnobChanges, descKnobsChanged, descKnobsInForce}
)

// Describe sends the descriptions of the worker and pool metrics.
func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range stateCollectorDs {
		ch <- d
	}
}

// Collect reads the worker limit and the pool once per scrape.
func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	w := c.s.limit.stats()
	p := c.s.store.Stats()
	if w.Size > 0 {
		gauge(ch, descWorkers, float64(w.Size))
	}
	gauge(ch, descWorkersBusy, float64(w.Busy))
	gauge(ch, descQueueLength, float64(w.Queued))
	counter(ch, descRejected, float64(w.Rejected))
	gauge(ch, descPoolSize, float64(p.Size))
	gauge(ch, descPoolConns, float64(p.InUse), "in_use")
	gauge(ch, descPoolConns, float64(p.Idle), "idle")
	gauge(ch, descPoolConns, float64(p.Opening), "opening")
	gauge(ch, descPoolWaiting, float64(p.Waiting))
	counter(ch, descAcquires, float64(p.Acquires))
	counter(ch, descAcquireWait, p.AcquireWait.Seconds())
	counter(ch, descConnects, float64(p.Opened))
	counter(ch, descBusySeconds, w.BusySecondsTotal)
	counter(ch, descQueueSeconds, w.QueuedSecondsTotal)
	counter(ch, descInUseSeconds, p.InUseTime.Seconds())
	counter(ch, descWaitingSecs, p.WaitingTime.Seconds())
	counter(ch, descNetworkWait, p.NetworkWait.Seconds())
	counter(ch, descConnectWait, p.ConnectWait.Seconds())
	if w.Size > 0 {
		gauge(ch, descQueueLimit, float64(w.QueueSize))
		gauge(ch, descQueueTimeout, w.QueueTimeoutSeconds)
	}
	gauge(ch, descPoolMin, float64(p.Min))
	gauge(ch, descPoolDraining, float64(p.Draining))
	k := c.s.knobStats()
	counter(ch, descKnobChanges, float64(k.Changes))
	if k.ChangedAt != nil {
		gauge(ch, descKnobsChanged, unixSeconds(*k.ChangedAt))
	}
	if k.EffectiveAt != nil {
		gauge(ch, descKnobsInForce, unixSeconds(*k.EffectiveAt))
	}
}

// unixSeconds is t as seconds since 1970, Prometheus's time stamps.
func unixSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// gauge sends one gauge sample.
func gauge(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

// counter sends one counter sample.
func counter(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
}

// observedStore adds the wait of every acquire, as the store timed it
// (entity.Conn.AcquireWait, the figure the pool's own counter adds), to
// bbs_db_acquire_duration_seconds.
type observedStore struct {
	entity.Store
	wait prometheus.Histogram
}

// Acquire takes a connection and observes its wait.
func (o observedStore) Acquire(ctx context.Context) (entity.Conn, error) {
	c, err := o.Store.Acquire(ctx)
	if err == nil {
		o.wait.Observe(c.AcquireWait().Seconds())
	}
	return c, err
}
