package watch

import (
	"fmt"
	"strings"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// A selector names series as PromQL does, with = or != label matchers.
type selector struct {
	name     string
	matchers []*labels.Matcher
}

var promQL = parser.NewParser(parser.Options{})

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

// matches reports whether lbls satisfy every matcher, a missing label as "".
func (sel selector) matches(lbls map[string]string) bool {
	for _, m := range sel.matchers {
		if !m.Matches(lbls[m.Name]) {
			return false
		}
	}
	return true
}

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
