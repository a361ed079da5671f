package watch

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

const (
	panelGoCPU    = "Process CPU, % of a core"
	panelGoRun    = "Goroutines and threads"
	panelGoMemory = "Memory, MiB"
	panelGoGC     = "GC cycles per second"
)

const mib = 1.0 / (1 << 20)

// goStats are client_golang's default metrics; some OSes lack the process ones.
var goStats = []Stat{
	{Name: "process_cpu", Metric: "process_cpu_seconds_total", Scale: 100, Unit: "% of a core",
		Chart: "cpu", Legend: "process", Column: "srv cpu %", Format: "%.1f", Panel: panelGoCPU, Optional: true},
	{Name: "goroutines", Metric: "go_goroutines", Legend: "goroutines", Column: "goroutines", Format: "%.0f", Panel: panelGoRun},
	{Name: "threads", Metric: "go_threads", Legend: "threads", Panel: panelGoRun},
	{Name: "heap", Metric: "go_memstats_heap_alloc_bytes", Scale: mib, Unit: "MiB", Legend: "heap in use", Column: "heap MiB", Format: "%.1f", Panel: panelGoMemory},
	{Name: "resident", Metric: "process_resident_memory_bytes", Scale: mib, Unit: "MiB", Legend: "resident", Panel: panelGoMemory, Optional: true},
	{Name: "alloc", Metric: "go_memstats_alloc_bytes_total", Scale: mib, Unit: "MiB/s"},
	{Name: "gc_cycles", Metric: "go_gc_duration_seconds_count", Unit: "/s", Legend: "GC cycles", Panel: panelGoGC},
	{Name: "gc_pause", Metric: "go_gc_duration_seconds", Scale: 1000, Unit: "ms", Legend: "mean GC pause"},
	{Name: "open_fds", Metric: "process_open_fds", Optional: true},
}

// GoService describes any Go service that serves client_golang's metrics.
var GoService = Target{
	Stats:      goStats,
	Charts:     []Chart{{Name: "cpu", Title: "Server CPU", YLabel: "% of one core"}},
	ProcessCPU: goStats[0],
}

// Describe returns t (own) when url's stats are JSON, have a metric named with
// t.MetricPrefix or fail to read, else GoService.
func Describe(ctx context.Context, url, format string, t Target) (d Target, own bool, err error) {
	if format == JSON {
		return t, true, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	sc, _, err := fetch(ctx, http.DefaultClient, url, format)
	if err != nil {
		return t, true, err
	}
	p, ok := sc.(promScrape)
	if !ok {
		return t, true, nil
	}
	if t.MetricPrefix != "" {
		for name := range p {
			if strings.HasPrefix(name, t.MetricPrefix) {
				return t, true, nil
			}
		}
	}
	return GoService, false, nil
}

// ParseMetricStat parses a metric reading name=selector[:how] (-server-metric),
// how being rate, per_request, gauge, mean or pNN, else the metric's type.
func ParseMetricStat(s string) (Stat, error) {
	name, rest, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.TrimSpace(rest) == "" {
		return Stat{}, fmt.Errorf("metric reading %q: want name=selector[:how], e.g. 'jobs=myapp_jobs_total{queue=\"mail\"}:rate'", s)
	}
	st := Stat{Name: name, Metric: strings.TrimSpace(rest), Legend: name}
	if i := strings.LastIndex(rest, ":"); i >= 0 && !strings.ContainsAny(rest[i:], "}\"") {
		how := strings.TrimSpace(rest[i+1:])
		st.Metric = strings.TrimSpace(rest[:i])
		switch {
		case how == "rate":
			st.Kind = Counter
		case how == "per_request":
			st.Kind, st.PerRequest = Counter, true
		case how == "gauge", how == "mean":
		case strings.HasPrefix(how, "p"):
			q, err := strconv.ParseFloat(how[1:], 64)
			if err != nil || q <= 0 || q >= 100 {
				return Stat{}, fmt.Errorf("metric reading %q: %q: want a percentile such as p50, p99 or p99.9", s, how)
			}
			st.Quantile = q / 100
		default: // a colon of a recording rule's name
			st.Metric = strings.TrimSpace(rest)
		}
	}
	if err := st.Check(); err != nil {
		return Stat{}, fmt.Errorf("metric reading %q: %w", s, err)
	}
	return st, nil
}
