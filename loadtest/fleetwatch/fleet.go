package fleetwatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"regexp"
	"sync"
	"time"

	"bbslab/loadtest/fleet"
	"bbslab/loadtest/watch"
)

// A Replica is one board: its name (its HAProxy server's too) and stats URL.
type Replica struct {
	Name     string
	StatsURL string
}

// Options say what a Fleet reads; each of HAProxyURL, PgBouncerDSN and
// PostgresDSN, when set, adds its reader.
type Options struct {
	Target     watch.Target
	Replicas   []Replica
	HAProxyURL string
	// PgBouncerDatabase, when set, is the one pooled database the sums keep.
	PgBouncerDSN      string
	PgBouncerDatabase string
	// PostgresDSN connects as another role than Role (see Postgres);
	// Database and Role are what it watches.
	PostgresDSN string
	Database    string
	Role        string
	// SharedCores says the replicas run on the same cores: the sum's
	// interference and steal are then the cores' (sharedCores).
	SharedCores bool
}

// A Fleet reads every source at once each time its document is asked for.
type Fleet struct {
	o      Options
	client *http.Client
	pgb    *PgBouncer
	pg     *Postgres
	sums   map[string]bool // paths averaged (Combine)

	mu   sync.Mutex
	last map[string]any // each replica's latest stats JSON, by name

	srv *http.Server
}

// New checks o and returns its Fleet; Close ends its connections.
func New(o Options) (*Fleet, error) {
	if len(o.Replicas) == 0 {
		return nil, errors.New("fleetwatch: no replica to read")
	}
	seen := map[string]bool{}
	for i, r := range o.Replicas {
		if r.Name == "" || r.StatsURL == "" {
			return nil, fmt.Errorf("fleetwatch: replica %d: a name and a stats URL are required", i+1)
		}
		if seen[r.Name] || !safeName.MatchString(r.Name) {
			return nil, fmt.Errorf("fleetwatch: replica name %q: want a unique name of letters, digits, - and _", r.Name)
		}
		seen[r.Name] = true
	}
	f := &Fleet{o: o, client: &http.Client{Timeout: readTimeout}, last: map[string]any{}, sums: meanPaths(o.Target)}
	if o.PgBouncerDSN != "" {
		f.pgb = NewPgBouncer(o.PgBouncerDSN, o.PgBouncerDatabase)
	}
	if o.PostgresDSN != "" {
		f.pg = NewPostgres(o.PostgresDSN, o.Database, o.Role)
	}
	return f, nil
}

// readTimeout bounds each source's read: a read a second must end before the next.
const readTimeout = 800 * time.Millisecond

// safeName matches a replica name fit for a stats path key and a legend.
var safeName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// Read reads every source at once and returns the fleet's stats document:
//
//	replicas.<name>  each replica's stats JSON, with up and requests_total
//	sum              the replicas' documents added up (Combine)
//	fleet            replicas, up: how many there are and answered
//	haproxy, pgbouncer, postgres   the readers' readings, when set
//	sources          per source, up and the last error
//
// plus the first answering replica's environment objects. A silent replica
// keeps its last document, so that its counters do not fall back in the sum.
func (f *Fleet) Read(ctx context.Context) map[string]any {
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	doc := map[string]any{}
	sources := map[string]any{}
	var mu sync.Mutex
	put := func(key string, v any, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err == nil && v != nil {
			doc[key] = v
		}
		sources[key] = source(err)
	}
	var wg sync.WaitGroup
	docs := make([]any, len(f.o.Replicas))
	errs := make([]error, len(f.o.Replicas))
	for i, r := range f.o.Replicas {
		wg.Go(func() { docs[i], errs[i] = f.readReplica(ctx, r.StatsURL) })
	}
	if f.o.HAProxyURL != "" {
		wg.Go(func() {
			r, err := ReadHAProxy(ctx, f.client, f.o.HAProxyURL)
			put("haproxy", r, err)
		})
	}
	if f.pgb != nil {
		wg.Go(func() {
			r, err := f.pgb.Read(ctx)
			put("pgbouncer", r, err)
		})
	}
	if f.pg != nil {
		wg.Go(func() {
			r, err := f.pg.Read(ctx)
			put("postgres", r, err)
		})
	}
	wg.Wait()
	f.replicas(doc, sources, docs, errs)
	doc["sources"] = sources
	return doc
}

// replicas puts the replicas' documents, their sum and the environment in doc.
func (f *Fleet) replicas(doc, sources map[string]any, docs []any, errs []error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	reps := map[string]any{}
	var all []any
	up := 0
	for i, r := range f.o.Replicas {
		src := source(errs[i])
		sources["replica "+r.Name] = src
		if errs[i] == nil {
			f.last[r.Name] = docs[i]
			up++
			if up == 1 {
				copyEnvironment(doc, docs[i], f.o.Target.EnvironmentKeys)
			}
		}
		d, ok := f.last[r.Name].(map[string]any)
		if !ok {
			continue
		}
		d = maps.Clone(d) // keys added leave the kept document as it was read
		d["up"] = src["up"]
		d["requests_total"] = total(d, f.o.Target.RequestPaths)
		reps[r.Name] = d
		all = append(all, d)
	}
	doc["replicas"] = reps
	sum := Combine(all, f.sums)
	if f.coresRead() {
		if m, ok := sum.(map[string]any); ok {
			f.sharedCores(m, all)
		}
	}
	doc["sum"] = sum
	doc["fleet"] = map[string]any{"replicas": float64(len(f.o.Replicas)), "up": float64(up)}
}

func source(err error) map[string]any {
	if err != nil {
		return map[string]any{"up": 0.0, "error": err.Error()}
	}
	return map[string]any{"up": 1.0}
}

func (f *Fleet) readReplica(ctx context.Context, url string) (any, error) {
	b, err := fleet.Get(ctx, f.client, url, "application/json", 8<<20)
	if err != nil {
		return nil, err
	}
	var d map[string]any
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("GET %s: stats JSON: %w", url, err)
	}
	return d, nil
}

// Handler serves the fleet's stats document, read anew at each request.
func (f *Fleet) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := json.Marshal(f.Read(r.Context()))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	})
}

// Serve serves Handler on loopback until Close and returns its URL (StatsURL).
func (f *Fleet) Serve() (string, error) {
	if f.srv != nil {
		return "", errors.New("fleetwatch: already serving")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	f.srv = &http.Server{Handler: f.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go f.srv.Serve(ln)
	return "http://" + ln.Addr().String() + "/", nil
}

// Close stops serving and closes the readers' connections.
func (f *Fleet) Close() error {
	var err error
	if f.srv != nil {
		err = f.srv.Close()
	}
	if f.pgb != nil {
		f.pgb.Close()
	}
	if f.pg != nil {
		f.pg.Close()
	}
	return err
}
