package watch

import (
	"fmt"
	"strings"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// A selector names series of a Prometheus text endpoint: a metric name
// and label matchers, as PromQL writes them (http_requests_total{handler="/"},
// http_requests_total{code!="200"}). The series it matches are summed over
// the labels it does not name.
type selector struct {
	name     string
	matchers []*labels.Matcher // = or !=
}

// promQL is Prometheus's own parser of selectors.
var promQL = parser.NewParser(parser.Options{})

// parseSelector parses s: a metric name, optionally followed by
// {label="value", ...} with = or != matchers.
func parseSelector(s string) (selector, error) {
	want := `want a metric name such as go_goroutines, then optionally {label="value",...}`
	ms, err := promQL.ParseMetricSelector(s)
	if err != nil {
		return selector{}, fmt.Errorf("metric selector %q: %v; %s", s, err, want)
	}
	var sel selector
	for _, m := range ms {
		switch {
		case m.Type == labels.MatchRegexp || m.Type == labels.MatchNotRegexp:
			return selector{}, fmt.Errorf("metric selector %q: regular-expression matchers (=~, !~) are not supported: use = or !=", s)
		case m.Name != labels.MetricName:
			sel.matchers = append(sel.matchers, m)
		case m.Type != labels.MatchEqual || sel.name != "":
			return selector{}, fmt.Errorf("metric selector %q: %s", s, want)
		default:
			sel.name = m.Value
		}
	}
	if sel.name == "" {
		return selector{}, fmt.Errorf("metric selector %q: %s", s, want)
	}
	return sel, nil
}

// matches reports whether labels (name to value) satisfy every matcher; a
// missing label reads as "", as in PromQL.
func (sel selector) matches(lbls map[string]string) bool {
	for _, m := range sel.matchers {
		if !m.Matches(lbls[m.Name]) {
			return false
		}
	}
	return true
}

// String returns the selector as PromQL writes it.
func (sel selector) String() string {
	if len(sel.matchers) == 0 {
		return sel.name
	}
	parts := make([]string, len(sel.matchers))
	for i, m := range sel.matchers {
		parts[i] = m.String()
	}
	return sel.name + "{" + strings.Join(parts, ",") + "}"
}
