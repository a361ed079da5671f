package session

import (
	"os"
	"slices"
	"strings"

	"bbslab/internal/cli"
	"bbslab/loadtest"
)

// Requests are a run's requests as loadtest run and sweep's flags give them:
// URLs sharing a method, body, headers and checks, or a weighted scenario.
type Requests struct {
	URLs     cli.List `flag:"url" arg:"URL" help:"target URL, http:// or https:// (repeatable; placeholders {{seq}} {{client}} {{rand A B}})"`
	Scenario string   `flag:"scenario" arg:"file" help:"TOML file of weighted, labelled [[request]] tables (instead of -url)"`
	Method   string   `flag:"method" help:"HTTP method for -url (default GET, or POST with -form, -body or -body-file)"`
	Form     string   `flag:"form" help:"form parameters for -url, e.g. 'name=u{{client}}&message=m{{seq}}' (the body of a POST, PUT or PATCH; the query otherwise)"`
	Headers  cli.List `flag:"H" help:"request header for -url, 'Name: value' (repeatable; 'Host: name' sets the Host line, as curl's -H does)"`
	Body     string   `flag:"body" help:"request body for -url, sent as it is (placeholders allowed; Content-Type application/x-www-form-urlencoded unless -H gives one, as curl's -d)"`
	BodyFile string   `flag:"body-file" arg:"file" help:"read the request body for -url from file (as -body)"`
	Expect   int      `flag:"expect" help:"expected status for -url (default: any below 400)"`
	Contains string   `flag:"contains" help:"substring the body of -url responses must contain"`
}

// Build returns the requests q gives: the scenario's, or one per URL. Its
// errors are usage errors naming the flag.
func (q Requests) Build() ([]loadtest.Request, error) {
	switch {
	case q.Scenario != "" && len(q.URLs) > 0:
		return nil, cli.Usagef("give -url or -scenario, not both")
	case q.Scenario != "":
		for _, fl := range []struct{ name, v string }{{"-method", q.Method}, {"-form", q.Form}, {"-body", q.Body}, {"-body-file", q.BodyFile}, {"-contains", q.Contains}} {
			if fl.v != "" {
				return nil, cli.Usagef("%s goes with -url; a scenario gives it per request", fl.name)
			}
		}
		if len(q.Headers) > 0 || q.Expect != 0 {
			return nil, cli.Usagef("-H and -expect go with -url; a scenario gives them per request")
		}
		rs, err := loadtest.LoadScenario(q.Scenario)
		if err != nil {
			return nil, cli.Usagef("%v", err)
		}
		return rs, nil
	case len(q.URLs) == 0:
		return nil, cli.Usagef("give -url or -scenario")
	}
	r, err := q.request()
	if err != nil {
		return nil, err
	}
	var rs []loadtest.Request
	for _, u := range q.URLs {
		r.URL = u
		rs = append(rs, r)
	}
	return rs, nil
}

// request is the request -url's flags describe, without its URL.
func (q Requests) request() (loadtest.Request, error) {
	r := loadtest.Request{Method: q.Method, Expect: q.Expect, Contains: q.Contains}
	given := slices.DeleteFunc([]string{q.Form, q.Body, q.BodyFile}, func(v string) bool { return v == "" })
	if len(given) > 1 {
		return r, cli.Usagef("give one of -form, -body and -body-file")
	}
	var err error
	if q.Form != "" {
		if r.Form, err = loadtest.ParseForm(q.Form); err != nil {
			return r, cli.Usagef("-form: %v", err)
		}
	}
	r.Body = q.Body
	if q.BodyFile != "" {
		b, err := os.ReadFile(q.BodyFile)
		if err != nil {
			return r, cli.Usagef("-body-file: %v", err)
		}
		if len(b) == 0 {
			return r, cli.Usagef("-body-file %s: the file is empty", q.BodyFile)
		}
		r.Body = string(b)
	}
	for _, h := range q.Headers {
		name, value, err := loadtest.ParseHeader(h)
		if err != nil {
			return r, cli.Usagef("-H: %v", err)
		}
		if r.Headers == nil {
			r.Headers = map[string]string{}
		}
		for k := range r.Headers {
			if strings.EqualFold(k, name) {
				return r, cli.Usagef("-H: header %q given twice", name)
			}
		}
		r.Headers[name] = value
	}
	return r, nil
}
