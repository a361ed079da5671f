package fleetwatch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"bbslab/loadtest/fleet"
)

// A Proxied is what HAProxy's exporter says of one backend or one server
// (or of several, added up); its counters are totals since HAProxy
// started, which the watcher turns into rates.
type Proxied struct {
	// CurrentSessions counts the connections the proxy holds (queued ones
	// included, for a backend); SessionsTotal every one so far.
	CurrentSessions float64 `json:"current_sessions"`
	SessionsTotal   float64 `json:"sessions_total"`
	// CurrentQueue is the requests waiting at the proxy for a server
	// slot; MaxQueue its highest since start.
	CurrentQueue     float64 `json:"current_queue"`
	MaxQueue         float64 `json:"max_queue"`
	Retries          float64 `json:"retries_total"`
	Redispatches     float64 `json:"redispatches_total"`
	ConnectionErrors float64 `json:"connection_errors_total"`
	// Responses counts HTTP responses by class (1xx to 5xx and other);
	// Answered adds them up.
	Responses map[string]float64 `json:"responses_total"`
	Answered  float64            `json:"responses_all_total"`
	// Up is 1 for a backend or server HAProxy counts as UP (summed: how
	// many are up).
	Up float64 `json:"up"`
}

func (p *Proxied) add(o Proxied) {
	for _, field := range haproxyFields {
		*field(p) += *field(&o)
	}
	p.Up += o.Up
	p.Answered += o.Answered
	for k, v := range o.Responses {
		if p.Responses == nil {
			p.Responses = map[string]float64{}
		}
		p.Responses[k] += v
	}
}

// An HAProxyReading is one read of HAProxy's exporter: each backend and
// each server by name (a server name used in several backends adds up),
// and Backend, all the backends added up.
type HAProxyReading struct {
	Backend  Proxied            `json:"backend"`
	Backends map[string]Proxied `json:"backends"`
	Servers  map[string]Proxied `json:"servers"`
}

// haproxyFields maps the exporter's metrics (haproxy_backend_* and
// haproxy_server_*, HAProxy 2.6) to the field of Proxied each fills.
var haproxyFields = map[string]func(*Proxied) *float64{
	"current_sessions":          func(p *Proxied) *float64 { return &p.CurrentSessions },
	"sessions_total":            func(p *Proxied) *float64 { return &p.SessionsTotal },
	"current_queue":             func(p *Proxied) *float64 { return &p.CurrentQueue },
	"max_queue":                 func(p *Proxied) *float64 { return &p.MaxQueue },
	"retry_warnings_total":      func(p *Proxied) *float64 { return &p.Retries },
	"redispatch_warnings_total": func(p *Proxied) *float64 { return &p.Redispatches },
	"connection_errors_total":   func(p *Proxied) *float64 { return &p.ConnectionErrors },
}

// ReadHAProxy reads HAProxy's Prometheus exporter at url once.
func ReadHAProxy(ctx context.Context, c *http.Client, url string) (HAProxyReading, error) {
	b, err := fleet.Get(ctx, c, url, "text/plain;version=0.0.4", 16<<20)
	if err != nil {
		return HAProxyReading{}, err
	}
	r, err := ParseHAProxy(bytes.NewReader(b))
	if err != nil {
		return HAProxyReading{}, fmt.Errorf("GET %s: %w", url, err)
	}
	return r, nil
}

// ParseHAProxy reads the exporter's text exposition; an exposition with
// no backend at all is an error.
func ParseHAProxy(r io.Reader) (HAProxyReading, error) {
	out := HAProxyReading{Backends: map[string]Proxied{}, Servers: map[string]Proxied{}}
	samples, err := fleet.ParseText(r)
	if err != nil {
		return HAProxyReading{}, fmt.Errorf("HAProxy exposition: %w", err)
	}
	for _, s := range samples {
		addHAProxy(&out, s)
	}
	if len(out.Backends) == 0 {
		return HAProxyReading{}, errors.New("HAProxy exposition: no haproxy_backend_* metric (is this HAProxy's prometheus-exporter, with a backend?)")
	}
	for _, b := range out.Backends {
		out.Backend.add(b)
	}
	return out, nil
}

func addHAProxy(out *HAProxyReading, s fleet.Sample) {
	var (
		field string
		set   map[string]Proxied
		key   string
	)
	if f, ok := strings.CutPrefix(s.Name, "haproxy_backend_"); ok {
		field, set, key = f, out.Backends, s.Labels["proxy"]
	} else if f, ok := strings.CutPrefix(s.Name, "haproxy_server_"); ok {
		field, set, key = f, out.Servers, s.Labels["server"]
	} else {
		return
	}
	p := set[key]
	switch {
	case field == "http_responses_total":
		if p.Responses == nil {
			p.Responses = map[string]float64{}
		}
		p.Responses[s.Labels["code"]] += s.Value
		p.Answered += s.Value
	case field == "status":
		if s.Labels["state"] == "UP" {
			p.Up += s.Value
		}
	case haproxyFields[field] != nil:
		*haproxyFields[field](&p) += s.Value
	default:
		if _, seen := set[key]; !seen {
			return // only the figures Proxied keeps make a backend or server
		}
	}
	set[key] = p
}
