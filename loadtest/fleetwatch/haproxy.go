package fleetwatch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// A Proxied is what HAProxy's Prometheus exporter says of one backend or
// one server (or of several, added up): sessions now and since start,
// the queue at the proxy now and its highest, the retries, redispatches
// and connection errors since start, and the HTTP responses by class.
// Counters are totals since HAProxy started: the watcher turns them into
// rates.
type Proxied struct {
	// CurrentSessions counts the connections the proxy holds to the
	// backend (queued ones included, for a backend) or to the server;
	// SessionsTotal every one so far.
	CurrentSessions float64 `json:"current_sessions"`
	SessionsTotal   float64 `json:"sessions_total"`
	// CurrentQueue is the requests waiting at the proxy for a server slot
	// (a server's maxconn, or none free in the backend); MaxQueue its
	// highest since start.
	CurrentQueue float64 `json:"current_queue"`
	MaxQueue     float64 `json:"max_queue"`
	// Retries are connection attempts repeated on the same server,
	// Redispatches requests sent to another server after a failure,
	// ConnectionErrors failed connections to servers.
	Retries          float64 `json:"retries_total"`
	Redispatches     float64 `json:"redispatches_total"`
	ConnectionErrors float64 `json:"connection_errors_total"`
	// Responses counts HTTP responses by class: 1xx to 5xx and other.
	Responses map[string]float64 `json:"responses_total"`
	// Answered adds up Responses: the requests answered.
	Answered float64 `json:"responses_all_total"`
	// Up is 1 for a backend or server HAProxy counts as UP (summed: how
	// many are up).
	Up float64 `json:"up"`
}

// add adds o's figures to p.
func (p *Proxied) add(o Proxied) {
	p.CurrentSessions += o.CurrentSessions
	p.SessionsTotal += o.SessionsTotal
	p.CurrentQueue += o.CurrentQueue
	p.MaxQueue += o.MaxQueue
	p.Retries += o.Retries
	p.Redispatches += o.Redispatches
	p.ConnectionErrors += o.ConnectionErrors
	p.Up += o.Up
	p.Answered += o.Answered
	for k, v := range o.Responses {
		if p.Responses == nil {
			p.Responses = map[string]float64{}
		}
		p.Responses[k] += v
	}
}

// An HAProxyReading is one read of HAProxy's exporter: each backend by
// its name, each server by its name (a name used in several backends
// adds up), and Backend, all the backends added up.
type HAProxyReading struct {
	Backend  Proxied            `json:"backend"`
	Backends map[string]Proxied `json:"backends"`
	Servers  map[string]Proxied `json:"servers"`
}

// The exporter's metrics (HAProxy 2.6, USE_PROMEX), per backend
// (haproxy_backend_*, label proxy) and per server (haproxy_server_*,
// labels proxy and server), and the field of Proxied each one fills.
var haproxyFields = map[string]func(*Proxied) *float64{
	"current_sessions":          func(p *Proxied) *float64 { return &p.CurrentSessions },
	"sessions_total":            func(p *Proxied) *float64 { return &p.SessionsTotal },
	"current_queue":             func(p *Proxied) *float64 { return &p.CurrentQueue },
	"max_queue":                 func(p *Proxied) *float64 { return &p.MaxQueue },
	"retry_warnings_total":      func(p *Proxied) *float64 { return &p.Retries },
	"redispatch_warnings_total": func(p *Proxied) *float64 { return &p.Redispatches },
	"connection_errors_total":   func(p *Proxied) *float64 { return &p.ConnectionErrors },
}

// ReadHAProxy reads HAProxy's Prometheus exporter at url (a frontend with
// "http-request use-service prometheus-exporter") once.
func ReadHAProxy(ctx context.Context, c *http.Client, url string) (HAProxyReading, error) {
	b, err := get(ctx, c, url, "text/plain;version=0.0.4", 16<<20)
	if err != nil {
		return HAProxyReading{}, err
	}
	r, err := ParseHAProxy(bytes.NewReader(b))
	if err != nil {
		return HAProxyReading{}, fmt.Errorf("GET %s: %w", url, err)
	}
	return r, nil
}

// ParseHAProxy reads the exporter's text exposition (format 0.0.4) with
// prometheus/common/expfmt, the parser package watch already uses.
// Metrics other than those of Proxied are skipped; an exposition with no
// backend at all is an error (not HAProxy's exporter, or no backend).
func ParseHAProxy(r io.Reader) (HAProxyReading, error) {
	out := HAProxyReading{Backends: map[string]Proxied{}, Servers: map[string]Proxied{}}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return HAProxyReading{}, fmt.Errorf("HAProxy exposition: %w", err)
	}
	for name, mf := range fams {
		for _, m := range mf.GetMetric() {
			addHAProxy(&out, name, m)
		}
	}
	if len(out.Backends) == 0 {
		return HAProxyReading{}, errors.New("HAProxy exposition: no haproxy_backend_* metric (is this HAProxy's prometheus-exporter, with a backend?)")
	}
	for _, set := range []map[string]Proxied{out.Backends, out.Servers} {
		for k, p := range set {
			p.Answered = 0
			for _, v := range p.Responses {
				p.Answered += v
			}
			set[k] = p
		}
	}
	for _, b := range out.Backends {
		out.Backend.add(b)
	}
	return out, nil
}

// addHAProxy adds one series of family name to out.
func addHAProxy(out *HAProxyReading, name string, m *dto.Metric) {
	labels := map[string]string{}
	for _, l := range m.GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	var (
		field string
		set   map[string]Proxied
		key   string
	)
	if f, ok := strings.CutPrefix(name, "haproxy_backend_"); ok {
		field, set, key = f, out.Backends, labels["proxy"]
	} else if f, ok := strings.CutPrefix(name, "haproxy_server_"); ok {
		field, set, key = f, out.Servers, labels["server"]
	} else {
		return
	}
	// A series has one of the three; the others read 0.
	v := m.GetCounter().GetValue() + m.GetGauge().GetValue() + m.GetUntyped().GetValue()
	p := set[key]
	switch {
	case field == "http_responses_total":
		if p.Responses == nil {
			p.Responses = map[string]float64{}
		}
		p.Responses[labels["code"]] += v
	case field == "status":
		if labels["state"] == "UP" {
			p.Up += v
		}
	case haproxyFields[field] != nil:
		*haproxyFields[field](&p) += v
	default:
		if _, seen := set[key]; !seen {
			return // a backend or server is made by the figures Proxied keeps
		}
	}
	set[key] = p
}
