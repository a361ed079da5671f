package watch

import (
	"fmt"
	"strconv"
	"strings"
)

// A selector names series of a Prometheus text endpoint: a metric name
// and label matchers, as PromQL writes them (http_requests_total{handler="/"},
// http_requests_total{code!="200"}). The series it matches are summed over
// the labels it does not name.
type selector struct {
	name     string
	matchers []matcher
}

// A matcher is one label matcher: label = value, or label != value.
type matcher struct {
	label, value string
	not          bool
}

// parseSelector parses s: a metric name, optionally followed by
// {label="value", ...} with = or != matchers.
func parseSelector(s string) (selector, error) {
	s = strings.TrimSpace(s)
	name, rest, braces := strings.Cut(s, "{")
	name = strings.TrimSpace(name)
	if !validName(name, true) {
		return selector{}, fmt.Errorf("metric selector %q: want a metric name such as go_goroutines, then optionally {label=\"value\",...}", s)
	}
	sel := selector{name: name}
	if !braces {
		return sel, nil
	}
	rest = strings.TrimSpace(rest)
	if !strings.HasSuffix(rest, "}") {
		return selector{}, fmt.Errorf("metric selector %q: missing closing }", s)
	}
	rest = strings.TrimSpace(strings.TrimSuffix(rest, "}"))
	for rest != "" {
		i := strings.IndexAny(rest, "=!")
		if i < 0 {
			return selector{}, fmt.Errorf("metric selector %q: %q: want label=\"value\" or label!=\"value\"", s, rest)
		}
		m := matcher{label: strings.TrimSpace(rest[:i])}
		if !validName(m.label, false) {
			return selector{}, fmt.Errorf("metric selector %q: label name %q is not valid", s, m.label)
		}
		rest = rest[i:]
		switch {
		case strings.HasPrefix(rest, "!="):
			m.not, rest = true, rest[2:]
		case strings.HasPrefix(rest, "=~"), strings.HasPrefix(rest, "!~"):
			return selector{}, fmt.Errorf("metric selector %q: regular-expression matchers (=~, !~) are not supported: use = or !=", s)
		case strings.HasPrefix(rest, "="):
			rest = rest[1:]
		default:
			return selector{}, fmt.Errorf("metric selector %q: label %q: want = or !=", s, m.label)
		}
		rest = strings.TrimSpace(rest)
		v, n, err := quoted(rest)
		if err != nil {
			return selector{}, fmt.Errorf("metric selector %q: label %q: %v", s, m.label, err)
		}
		m.value = v
		sel.matchers = append(sel.matchers, m)
		rest = strings.TrimSpace(rest[n:])
		if rest != "" {
			if rest[0] != ',' {
				return selector{}, fmt.Errorf("metric selector %q: %q: want , between matchers", s, rest)
			}
			rest = strings.TrimSpace(rest[1:])
		}
	}
	return sel, nil
}

// quoted reads a double-quoted string (Go escapes) at the start of s and
// returns its value and length.
func quoted(s string) (string, int, error) {
	if !strings.HasPrefix(s, `"`) {
		return "", 0, fmt.Errorf("%q: want a double-quoted value", s)
	}
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			v, err := strconv.Unquote(s[:i+1])
			if err != nil {
				return "", 0, fmt.Errorf("%s: %v", s[:i+1], err)
			}
			return v, i + 1, nil
		}
	}
	return "", 0, fmt.Errorf("%q: missing closing quote", s)
}

// validName reports whether s is a legacy Prometheus metric name (colons
// allowed) or label name.
func validName(s string, metric bool) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		ok := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || (i > 0 && c >= '0' && c <= '9') || (metric && c == ':')
		if !ok {
			return false
		}
	}
	return true
}

// matches reports whether labels (name to value) satisfy every matcher; a
// missing label reads as "", as in PromQL.
func (sel selector) matches(labels map[string]string) bool {
	for _, m := range sel.matchers {
		if (labels[m.label] == m.value) == m.not {
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
		op := "="
		if m.not {
			op = "!="
		}
		parts[i] = m.label + op + strconv.Quote(m.value)
	}
	return sel.name + "{" + strings.Join(parts, ",") + "}"
}
