package watch

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/common/expfmt"
)

// The formats of a stats endpoint (Options.Format).
const (
	Auto       = "auto"
	JSON       = "json"
	Prometheus = "prometheus"
)

// CheckFormat checks a stats format's name.
func CheckFormat(f string) error {
	if _, ok := accept[cmp.Or(f, Auto)]; ok {
		return nil
	}
	return fmt.Errorf("stats format %q: want auto (by Content-Type), json or prometheus", f)
}

// A scrape is one read of a stats endpoint, in either format.
type scrape interface {
	format() string
	sample(st Stat, sels selectors) (sample, bool)
}

type jsonScrape struct{ doc any }

func (jsonScrape) format() string { return JSON }

func (j jsonScrape) sample(st Stat, _ selectors) (sample, bool) {
	if st.Path == "" {
		return sample{}, false
	}
	v, ok := LookupNumber(j.doc, st.Path)
	return sample{kind: st.Kind, v: v, per: 1}, ok
}

func (promScrape) format() string { return Prometheus }

func (p promScrape) sample(st Stat, sels selectors) (sample, bool) {
	if st.Metric == "" {
		return sample{}, false
	}
	s, ok := p.read(sels[st.Metric], st.Kind)
	if !ok {
		return sample{}, false
	}
	if st.Per != "" {
		d, ok := p.read(sels[st.Per], Gauge)
		if !ok || d.v == 0 {
			return sample{}, false
		}
		s.per = d.v
	}
	return s, true
}

// selectors holds parsed Prometheus selectors by their text.
type selectors map[string]selector

func (m selectors) add(texts ...string) error {
	for _, t := range texts {
		if t == "" || m[t].name != "" {
			continue
		}
		sel, err := parseSelector(t)
		if err != nil {
			return err
		}
		m[t] = sel
	}
	return nil
}

// accept is the Accept header for each format (expfmt reads OpenMetrics in part).
var accept = map[string]string{
	Auto:       "application/json, text/plain;version=0.0.4;q=0.9, */*;q=0.1",
	JSON:       "application/json",
	Prometheus: "text/plain;version=0.0.4, */*;q=0.1",
}

// fetch reads the stats endpoint at url once in format and says when the
// request was sent: a slow answer timed on arrival would skew short rates.
func fetch(ctx context.Context, c *http.Client, url, format string) (scrape, time.Time, error) {
	at := time.Now()
	format = cmp.Or(format, Auto)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, at, err
	}
	req.Header.Set("Accept", accept[format])
	resp, err := c.Do(req)
	if err != nil {
		return nil, at, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, at, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	body := io.Reader(resp.Body)
	if strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") && !resp.Uncompressed {
		// A server that zips unasked.
		zr, err := gzip.NewReader(body)
		if err != nil {
			return nil, at, fmt.Errorf("GET %s: gzip: %w", url, err)
		}
		defer zr.Close()
		body = zr
	}
	br := bufio.NewReader(io.LimitReader(body, 8<<20))
	body = br
	ct := resp.Header.Get("Content-Type")
	kind, pf := contentFormat(resp.Header)
	if format == Auto && (kind == "" || pf == expfmt.FmtText && !strings.Contains(ct, "version=")) && startsJSON(br) {
		// Served as plain text or untyped: no Prometheus text begins so.
		kind = JSON
	}
	switch {
	case format == JSON, format == Auto && kind == JSON:
		var doc any
		if err := json.NewDecoder(body).Decode(&doc); err != nil {
			return nil, at, fmt.Errorf("GET %s: stats JSON: %w", url, err)
		}
		return jsonScrape{doc}, at, nil
	case format == Prometheus, format == Auto && kind == Prometheus:
		if pf == "" {
			pf = expfmt.NewFormat(expfmt.TypeTextPlain)
		}
		p, err := decodeProm(body, pf)
		if err != nil {
			return nil, at, fmt.Errorf("GET %s: Prometheus exposition: %w", url, err)
		}
		return p, at, nil
	}
	return nil, at, fmt.Errorf("GET %s: Content-Type %q is neither JSON nor Prometheus text (want application/json, text/plain; version=0.0.4 or application/openmetrics-text; version=1.0.0; or set the stats format)", url, ct)
}

// startsJSON reports whether the body opens a JSON object or array.
func startsJSON(br *bufio.Reader) bool {
	b, _ := br.Peek(512) // fewer at the body's end
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && (b[0] == '{' || b[0] == '[')
}

// contentFormat tells a response's format (and expfmt's) from its Content-Type.
func contentFormat(h http.Header) (string, expfmt.Format) {
	mt, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		return "", ""
	}
	switch {
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return JSON, ""
	case mt == expfmt.OpenMetricsType:
		switch params["version"] {
		case "", expfmt.OpenMetricsVersion_1_0_0, expfmt.OpenMetricsVersion_0_0_1:
			return Prometheus, expfmt.FmtOpenMetrics_1_0_0
		}
		return "", "" // OpenMetrics 2.0: expfmt cannot decode it
	}
	if f := expfmt.ResponseFormat(h); f != expfmt.FmtUnknown {
		return Prometheus, f
	}
	return "", ""
}
