package loadtest

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"

	"bbslab/internal/cli"
)

// A Request describes one kind of request a client sends. Form values, the
// URL's path and query and header values may hold placeholders ({{seq}},
// {{client}}, {{rand A B}}) so that every posted message can be told apart.
type Request struct {
	// Label names the request in results; it defaults to "METHOD path".
	Label string `json:"label" toml:"label"`
	// Method is the HTTP method; GET when empty, or POST when Form is set.
	Method string `json:"method,omitempty" toml:"method"`
	// URL is an absolute http:// URL.
	URL string `json:"url" toml:"url"`
	// Form holds form parameters: the urlencoded body of a POST or PUT, or
	// the query string otherwise.
	Form map[string]string `json:"form,omitempty" toml:"form"`
	// Headers are extra request headers.
	Headers map[string]string `json:"headers,omitempty" toml:"headers"`
	// Expect is the expected status code; 0 accepts any status below 400.
	Expect int `json:"expect,omitempty" toml:"expect"`
	// Contains, when set, must occur in the response body.
	Contains string `json:"contains,omitempty" toml:"contains"`
	// Weight is the relative frequency of this request (default 1).
	Weight int `json:"weight,omitempty" toml:"weight"`
}

// scenarioFile is the TOML layout of a scenario file.
type scenarioFile struct {
	Request []Request `toml:"request"`
}

// LoadScenario reads a TOML scenario file: one [[request]] table per
// request. Unknown keys are errors naming the key. The requests are checked
// as Run would check them.
func LoadScenario(path string) ([]Request, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return ParseScenario(path, b)
}

// ParseForm parses form parameters as a command line gives them for a
// Request's Form: name=value pairs joined with &, each query-escaped.
func ParseForm(s string) (map[string]string, error) {
	form := map[string]string{}
	for _, kv := range strings.Split(s, "&") {
		k, v, _ := strings.Cut(kv, "=")
		k2, err1 := url.QueryUnescape(k)
		v2, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil || k2 == "" {
			return nil, fmt.Errorf("bad parameter %q", kv)
		}
		form[k2] = v2
	}
	return form, nil
}

// ParseScenario parses scenario TOML; name is used in error messages.
func ParseScenario(name string, data []byte) ([]Request, error) {
	var f scenarioFile
	if err := cli.DecodeTOML("scenario", name, data, &f); err != nil {
		return nil, err
	}
	if len(f.Request) == 0 {
		return nil, fmt.Errorf("scenario %s: no [[request]] tables", name)
	}
	for i, r := range f.Request {
		if _, err := compileRequest(r, 0, true); err != nil {
			return nil, fmt.Errorf("scenario %s: request %d: %w", name, i+1, err)
		}
	}
	return f.Request, nil
}

// compiled is a Request prepared for the wire.
type compiled struct {
	label    string
	index    int
	addr     string
	url      string
	weight   int
	head     bool // HEAD: the response has no body
	expect   int
	contains []byte
	// static is the whole request when it has no placeholders.
	static []byte
	// Otherwise head holds the request line and headers up to the
	// Content-Length value, and body the form.
	line    template // request line + fixed headers, ending in "\r\n"
	body    template
	hasBody bool
}

// DialAddr returns the host:port a client dials for the http:// URL raw.
func DialAddr(raw string) (string, error) {
	hostport, _, _, err := splitURL(raw)
	return hostport, err
}

// splitURL returns host:port and the request URI of an http:// URL.
func splitURL(raw string) (hostport, host, uri string, err error) {
	low := strings.ToLower(raw)
	if strings.HasPrefix(low, "https://") {
		return "", "", "", fmt.Errorf("url %q: https is not supported; loadtest speaks plain HTTP/1.1 (http://) only", raw)
	}
	if !strings.HasPrefix(low, "http://") {
		return "", "", "", fmt.Errorf("url %q: want an absolute http:// URL", raw)
	}
	rest := raw[len("http://"):]
	i := strings.IndexAny(rest, "/?#")
	host = rest
	uri = "/"
	if i >= 0 {
		host, uri = rest[:i], rest[i:]
		if uri[0] == '?' {
			uri = "/" + uri
		}
		if j := strings.IndexByte(uri, '#'); j >= 0 {
			uri = uri[:j]
		}
		if uri == "" {
			uri = "/"
		}
	}
	if host == "" {
		return "", "", "", fmt.Errorf("url %q: no host", raw)
	}
	hostport = host
	if _, _, e := net.SplitHostPort(host); e != nil {
		hostport = net.JoinHostPort(strings.Trim(host, "[]"), "80")
	}
	return hostport, host, uri, nil
}

// compileRequest prepares r for sending. keepAlive false adds
// "Connection: close".
func compileRequest(r Request, index int, keepAlive bool) (*compiled, error) {
	hostport, host, uri, err := splitURL(r.URL)
	if err != nil {
		return nil, err
	}
	method := strings.ToUpper(r.Method)
	if method == "" {
		method = "GET"
		if len(r.Form) > 0 {
			method = "POST"
		}
	}
	for _, c := range method {
		if c < 'A' || c > 'Z' {
			return nil, fmt.Errorf("bad method %q", r.Method)
		}
	}
	if r.Expect != 0 && (r.Expect < 100 || r.Expect > 599) {
		return nil, fmt.Errorf("expect %d: want a status code 100-599", r.Expect)
	}
	if r.Weight < 0 {
		return nil, fmt.Errorf("weight %d: want >= 0", r.Weight)
	}
	c := &compiled{
		label:    r.Label,
		index:    index,
		addr:     hostport,
		url:      r.URL,
		weight:   r.Weight,
		expect:   r.Expect,
		contains: []byte(r.Contains),
		head:     method == "HEAD",
	}
	if c.weight == 0 {
		c.weight = 1
	}
	// Form, in key order for reproducible requests.
	keys := make([]string, 0, len(r.Form))
	for k := range r.Form {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// Escape only the values' literal text: compile each value separately.
	var bodyT template
	for i, k := range keys {
		if i > 0 {
			bodyT.addLit("&", nil)
		}
		bodyT.addLit(url.QueryEscape(k)+"=", nil)
		vt, err := compileTemplate(r.Form[k], url.QueryEscape)
		if err != nil {
			return nil, fmt.Errorf("form %q: %w", k, err)
		}
		bodyT.segs = append(bodyT.segs, vt.segs...)
	}
	c.hasBody = len(keys) > 0 && (method == "POST" || method == "PUT" || method == "PATCH")
	ut, err := compileTemplate(uri, nil)
	if err != nil {
		return nil, fmt.Errorf("url: %w", err)
	}
	if len(keys) > 0 && !c.hasBody {
		// A form on a request without a body goes in the query.
		sep := "?"
		if strings.Contains(uri, "?") {
			sep = "&"
		}
		ut.addLit(sep, nil)
		ut.segs = append(ut.segs, bodyT.segs...)
		bodyT = template{}
	}
	if err := c.buildLine(method, ut, host, r.Headers, keepAlive); err != nil {
		return nil, err
	}
	c.body = bodyT
	if c.label == "" {
		c.label = method + " " + uri
	}
	if c.line.static() && c.body.static() {
		c.static = c.render(nil, new([]byte), nil)
	}
	return c, nil
}

// buildLine compiles the request line and headers (without Content-Length).
func (c *compiled) buildLine(method string, uri template, host string, headers map[string]string, keepAlive bool) error {
	var t template
	t.addLit(method+" ", nil)
	t.segs = append(t.segs, uri.segs...)
	t.addLit(" HTTP/1.1\r\nHost: "+host+"\r\nUser-Agent: bbslab-loadtest\r\n", nil)
	if !keepAlive {
		t.addLit("Connection: close\r\n", nil)
	}
	keys := make([]string, 0, len(headers))
	for k := range headers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if strings.ContainsAny(k, "\r\n: ") || k == "" {
			return fmt.Errorf("bad header name %q", k)
		}
		vt, err := compileTemplate(headers[k], func(s string) string {
			return strings.NewReplacer("\r", "", "\n", "").Replace(s)
		})
		if err != nil {
			return fmt.Errorf("header %q: %w", k, err)
		}
		t.addLit(k+": ", nil)
		t.segs = append(t.segs, vt.segs...)
		t.addLit("\r\n", nil)
	}
	c.line = t
	return nil
}

// render appends the wire form of the request to dst. The body is
// rendered into *scratch, which is kept for the next call; st may be nil
// for static requests.
func (c *compiled) render(dst []byte, scratch *[]byte, st *renderState) []byte {
	dst = c.line.render(dst, st)
	if !c.hasBody {
		return append(dst, "\r\n"...)
	}
	*scratch = c.body.render((*scratch)[:0], st)
	body := *scratch
	dst = append(dst, "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: "...)
	dst = strconv.AppendInt(dst, int64(len(body)), 10)
	dst = append(dst, "\r\n\r\n"...)
	return append(dst, body...)
}
