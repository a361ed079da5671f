package bbs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/prometheus/promql/parser"
)

// dashboardFile is the Grafana dashboard of docs/grafana.md.
var dashboardFile = filepath.Join("..", "docs", "grafana", "bbs-dashboard.json")

// dashboard is the part of Grafana's dashboard JSON model the test reads.
type dashboard struct {
	UID           string `json:"uid"`
	SchemaVersion int    `json:"schemaVersion"`
	Templating    struct {
		List []struct {
			Name  string `json:"name"`
			Type  string `json:"type"`
			Query string `json:"query"`
		} `json:"list"`
	} `json:"templating"`
	Panels []struct {
		Title      string `json:"title"`
		Datasource struct {
			Type string `json:"type"`
			UID  string `json:"uid"`
		} `json:"datasource"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

// grafanaVariables are the ones the dashboard's expressions use, replaced
// by a value PromQL accepts before parsing.
var grafanaVariables = strings.NewReplacer("$__rate_interval", "1m", "$__interval", "1m", "$__range", "1m")

// linuxOnly are the families the board exports only on Linux.
var linuxOnly = []string{"bbs_own_cpus_steal_seconds_total", "bbs_connections", "bbs_listen_accept_queue"}

// TestDashboardMetricsExist parses every panel's PromQL with Prometheus'
// own parser and checks that each metric it selects is on the board's
// /metrics after a request of each command (a histogram's _bucket, _sum
// and _count count as its family), and that the dashboard has the live
// dashboard's panels on a Prometheus data source chosen by a variable.
func TestDashboardMetricsExist(t *testing.T) {
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	if d.UID == "" || d.SchemaVersion < 36 {
		t.Errorf("%s: uid %q, schemaVersion %d; want a uid and schemaVersion 36 or later", dashboardFile, d.UID, d.SchemaVersion)
	}
	if !slices.ContainsFunc(d.Templating.List, func(v struct {
		Name  string `json:"name"`
		Type  string `json:"type"`
		Query string `json:"query"`
	}) bool {
		return v.Name == "datasource" && v.Type == "datasource" && v.Query == "prometheus"
	}) {
		t.Errorf("%s: no datasource variable of type prometheus named datasource", dashboardFile)
	}

	reg, _ := servedRegistry(t)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	exposed := map[string]bool{}
	for _, mf := range mfs {
		n := mf.GetName()
		exposed[n] = true
		if mf.GetType() == dto.MetricType_HISTOGRAM || mf.GetType() == dto.MetricType_SUMMARY {
			exposed[n+"_sum"], exposed[n+"_count"] = true, true
		}
		if mf.GetType() == dto.MetricType_HISTOGRAM {
			exposed[n+"_bucket"] = true
		}
	}

	var titles []string
	used := map[string]bool{}
	for _, p := range d.Panels {
		titles = append(titles, p.Title)
		if p.Datasource.Type != "prometheus" || p.Datasource.UID != "${datasource}" {
			t.Errorf("panel %q: datasource %+v; want prometheus, uid ${datasource}", p.Title, p.Datasource)
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			names, err := selectedMetrics(tg.Expr)
			if err != nil {
				t.Errorf("panel %q: %q: %v", p.Title, tg.Expr, err)
				continue
			}
			for _, n := range names {
				used[n] = true
				if exposed[n] || runtime.GOOS != "linux" && slices.Contains(linuxOnly, n) {
					continue
				}
				t.Errorf("panel %q: %q selects %s, which the board's /metrics lacks", p.Title, tg.Expr, n)
			}
		}
	}
	for _, want := range []string{"Throughput", "Latency", "Workers", "Connection pool", "Waits per request", "CPU", "GC cycles", "GC pauses"} {
		if !slices.Contains(titles, want) {
			t.Errorf("%s: no panel %q (panels: %q)", dashboardFile, want, titles)
		}
	}
	if len(used) < 15 {
		t.Errorf("the panels select %d metrics (%v); want the 15 or more of the live dashboard's panels", len(used), used)
	}
}

// selectedMetrics parses a Grafana PromQL expression and returns the names
// of the metrics its selectors name; a selector without a metric name is
// an error.
func selectedMetrics(expr string) ([]string, error) {
	e, err := parser.NewParser(parser.Options{}).ParseExpr(grafanaVariables.Replace(expr))
	if err != nil {
		return nil, err
	}
	var names []string
	var bad error
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		if vs, ok := n.(*parser.VectorSelector); ok {
			if vs.Name == "" {
				bad = errNoName{vs.String()}
			}
			names = append(names, vs.Name)
		}
		return nil
	})
	return names, bad
}

// errNoName is a selector that names no metric.
type errNoName struct{ sel string }

func (e errNoName) Error() string { return "selector " + e.sel + " names no metric" }

// TestSelectedMetrics checks the parsing on expressions whose metrics are
// known, a bad one and one without a metric name.
func TestSelectedMetrics(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want []string
		ok   bool
	}{
		{`sum by (instance) (rate(a_total[$__rate_interval])) / sum(rate(b_seconds_sum[5m]))`, []string{"a_total", "b_seconds_sum"}, true},
		{`histogram_quantile(0.99, sum by (le) (rate(x_bucket{job="bbs"}[1m])))`, []string{"x_bucket"}, true},
		{`rate(x_total[1m]`, nil, false},
		{`{job="bbs"}`, nil, false},
	} {
		got, err := selectedMetrics(tc.expr)
		if (err == nil) != tc.ok || tc.ok && !slices.Equal(got, tc.want) {
			t.Errorf("selectedMetrics(%q) = %q, %v; want %q, ok %v", tc.expr, got, err, tc.want, tc.ok)
		}
	}
}
