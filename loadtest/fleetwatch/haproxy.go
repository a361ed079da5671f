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

// A Proxied is what HAProxy's exporter says of a backend or server (or several
// added up); its counters are totals since start, which the watcher rates.
type Proxied struct {
	// CurrentSessions counts connections held (a backend's include queued ones).
	CurrentSessions float64 `json:"current_sessions"`
	SessionsTotal   float64 `json:"sessions_total"`
	// CurrentQueue is the requests waiting at the proxy for a server slot.
	CurrentQueue     float64 `json:"current_queue"`
	MaxQueue         float64 `json:"max_queue"`
	Retries          float64 `json:"retries_total"`
	Redispatches     float64 `json:"redispatches_total"`
	ConnectionErrors float64 `json:"connection_errors_total"`
	// Responses counts HTTP responses by class; Answered adds them up.
	Responses map[string]float64 `json:"responses_total"`
	Answered  float64            `json:"responses_all_total"`
	// Up is 1 for a backend or server that is UP (summed: how many are).
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

// An HAProxyReading is one exporter read: backends and servers by name (a
// server in several backends adds up), and Backend, all backends summed.
type HAProxyReading struct {
	Backend  Proxied            `json:"backend"`
	Backends map[string]Proxied `json:"backends"`
	Servers  map[string]Proxied `json:"servers"`
}

// haproxyFields maps the exporter's metrics (HAProxy 2.6) to Proxied's fields.
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

// ParseHAProxy reads the exporter's text; one with no backend is an error.
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
