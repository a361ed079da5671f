package watch

import (
	"errors"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// promScrape is one read of a Prometheus endpoint's families by name.
type promScrape map[string]*dto.MetricFamily

// decodeProm decodes a Prometheus exposition in format f.
func decodeProm(r io.Reader, f expfmt.Format) (promScrape, error) {
	if f.FormatType() == expfmt.TypeOpenMetrics {
		b, err := io.ReadAll(r)
		if err != nil {
			return nil, err
		}
		r = strings.NewReader(fromOpenMetrics(string(b)))
	}
	dec := expfmt.NewDecoder(r, f)
	out := promScrape{}
	for {
		var mf dto.MetricFamily
		err := dec.Decode(&mf)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		out[mf.GetName()] = &mf
	}
	return out, nil
}

var openMetricsTypes = map[string]string{"unknown": "untyped", "info": "gauge", "stateset": "gauge", "gaugehistogram": "untyped"}

// fromOpenMetrics rewrites OpenMetrics 1.0 into the text format expfmt parses:
// counters typed as name_total, other types untyped or gauge, no exemplars.
func fromOpenMetrics(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if f := strings.Fields(l); len(f) == 4 && f[0] == "#" && f[1] == "TYPE" {
			switch name, typ := f[2], f[3]; {
			case typ == "counter" && !strings.HasSuffix(name, "_total"):
				lines[i] = "# TYPE " + name + "_total counter"
			case openMetricsTypes[typ] != "":
				lines[i] = "# TYPE " + name + " " + openMetricsTypes[typ]
			}
			continue
		}
		if strings.HasPrefix(l, "#") {
			continue
		}
		if j := strings.Index(l, " # {"); j >= 0 {
			lines[i] = l[:j]
		}
	}
	return strings.Join(lines, "\n")
}

// A sample is one read of a stat: a value, or a histogram's (or summary's) sum,
// count and cumulative buckets; per is the divisor (Stat.Per), 1 without one.
type sample struct {
	kind    string
	v       float64
	count   float64
	buckets []bucket
	per     float64
}

// Histogram is the kind of a stat read from a histogram or summary.
const Histogram = "histogram"

type bucket struct {
	le    float64
	count float64
}

var histogramTypes = map[dto.MetricType]bool{
	dto.MetricType_HISTOGRAM: true, dto.MetricType_SUMMARY: true, dto.MetricType_GAUGE_HISTOGRAM: true,
}

// family returns the family of a metric name and its part ("", _sum, ...).
func (p promScrape) family(name string) (*dto.MetricFamily, string) {
	if mf, ok := p[name]; ok {
		return mf, ""
	}
	for _, part := range []string{"_sum", "_count", "_bucket"} {
		if base, ok := strings.CutSuffix(name, part); ok {
			if mf, ok := p[base]; ok && histogramTypes[mf.GetType()] {
				return mf, part
			}
		}
	}
	if mf, ok := p[name+"_total"]; ok && mf.GetType() == dto.MetricType_COUNTER {
		return mf, ""
	}
	return nil, ""
}

// read sums the series sel matches; kind says how to read an untyped family.
func (p promScrape) read(sel selector, kind string) (sample, bool) {
	mf, part := p.family(sel.name)
	if mf == nil {
		return sample{}, false
	}
	s := sample{per: 1, kind: Gauge}
	switch t := mf.GetType(); {
	case part == "_bucket":
		return sample{}, false // a bucket alone is no reading: name the histogram
	case part != "", t == dto.MetricType_COUNTER, t == dto.MetricType_UNTYPED && kind == Counter:
		s.kind = Counter
	case histogramTypes[t]:
		s.kind = Histogram
	}
	les := map[float64]float64{}
	found := false
	for _, m := range mf.GetMetric() {
		labels := make(map[string]string, len(m.GetLabel()))
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if !sel.matches(labels) {
			continue
		}
		found = true
		switch {
		case m.Histogram != nil:
			h := m.GetHistogram()
			sum, count := h.GetSampleSum(), float64(h.GetSampleCount())
			if h.SampleCountFloat != nil {
				count = h.GetSampleCountFloat()
			}
			switch part {
			case "_sum":
				s.v += sum
			case "_count":
				s.v += count
			default:
				s.v += sum
				s.count += count
				for _, b := range h.GetBucket() {
					c := float64(b.GetCumulativeCount())
					if b.CumulativeCountFloat != nil {
						c = b.GetCumulativeCountFloat()
					}
					les[b.GetUpperBound()] += c
				}
				les[math.Inf(1)] += 0 // the +Inf bucket, filled from count below
			}
		case m.Summary != nil:
			sm := m.GetSummary()
			switch part {
			case "_count":
				s.v += float64(sm.GetSampleCount())
			default: // _sum, or the summary read as its mean
				s.v += sm.GetSampleSum()
				s.count += float64(sm.GetSampleCount())
			}
		case m.Counter != nil:
			s.v += m.GetCounter().GetValue()
		case m.Gauge != nil:
			s.v += m.GetGauge().GetValue()
		case m.Untyped != nil:
			s.v += m.GetUntyped().GetValue()
		}
	}
	if !found {
		return sample{}, false
	}
	if len(les) > 0 {
		les[math.Inf(1)] = s.count
		for _, le := range slices.Sorted(maps.Keys(les)) {
			s.buckets = append(s.buckets, bucket{le: le, count: les[le]})
		}
	}
	return s, true
}

// quantile returns the q-quantile between two reads of cumulative buckets,
// as PromQL's histogram_quantile(q, increase(...)) does.
func quantile(q float64, prev, cur []bucket) (float64, bool) {
	before := map[float64]float64{}
	for _, b := range prev {
		before[b.le] = b.count
	}
	d := make([]bucket, 0, len(cur))
	for _, b := range cur {
		c := b.count - before[b.le]
		if n := len(d); n > 0 && c < d[n-1].count {
			c = d[n-1].count // keep it cumulative when a reset or a race broke it
		}
		d = append(d, bucket{le: b.le, count: c})
	}
	if len(d) < 2 || !math.IsInf(d[len(d)-1].le, 1) {
		return 0, false
	}
	total := d[len(d)-1].count
	if total <= 0 {
		return 0, false
	}
	rank := q * total
	i := sort.Search(len(d), func(i int) bool { return d[i].count >= rank })
	switch {
	case i >= len(d)-1:
		return d[len(d)-2].le, true
	case i == 0 && d[0].le <= 0:
		return d[0].le, true
	}
	start, end, count := 0.0, d[i].le, d[i].count
	if i > 0 {
		start = d[i-1].le
		count -= d[i-1].count
		rank -= d[i-1].count
	}
	return start + (end-start)*(rank/count), true
}
