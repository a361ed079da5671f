package loadtest

import (
	"cmp"
	"crypto/tls"
	"fmt"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"bbslab/internal/cli"
)

// A Request is one kind of request a client sends. Form, body, URL path and query
// and header values may hold placeholders ({{seq}}, {{client}}, {{rand A B}}).
type Request struct {
	// Label names the request in results; it defaults to "METHOD path".
	Label string `json:"label" toml:"label"`
	// Method is the HTTP method: GET, or POST with Form or Body, by default.
	Method string `json:"method,omitempty" toml:"method"`
	// URL is an absolute http:// or https:// URL.
	URL string `json:"url" toml:"url"`
	// Form is the urlencoded body of a POST, PUT or PATCH, else the query string.
	Form map[string]string `json:"form,omitempty" toml:"form"`
	// Body is the request body (not with Form), form-urlencoded unless Headers say otherwise.
	Body string `json:"body,omitempty" toml:"body"`
	// BodyFile, in a scenario file only, names a file holding the body.
	BodyFile string `json:"-" toml:"body_file"`
	// Headers are extra request headers. A Host header replaces the URL's
	// host; Content-Length, Transfer-Encoding and Connection are refused.
	Headers map[string]string `json:"headers,omitempty" toml:"headers"`
	// Expect is the expected status code; 0 accepts any status below 400.
	Expect int `json:"expect,omitempty" toml:"expect"`
	// Contains, when set, must occur in the response body.
	Contains string `json:"contains,omitempty" toml:"contains"`
	// Weight is the relative frequency of this request (default 1).
	Weight int `json:"weight,omitempty" toml:"weight"`
}

type scenarioFile struct {
	Request []Request `toml:"request"`
}

// LoadScenario reads a TOML scenario file of [[request]] tables.
func LoadScenario(path string) ([]Request, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	reqs, err := ParseScenario(path, b)
	if err != nil {
		return nil, err
	}
	for i := range reqs {
		r := &reqs[i]
		if r.BodyFile == "" {
			continue
		}
		bf := r.BodyFile
		if !filepath.IsAbs(bf) {
			bf = filepath.Join(filepath.Dir(path), bf)
		}
		body, err := os.ReadFile(bf)
		if err != nil {
			return nil, fmt.Errorf("scenario %s: request %d: body_file: %w", path, i+1, err)
		}
		r.Body, r.BodyFile = string(body), ""
		if _, err := compileRequest(*r, 0, true); err != nil {
			return nil, fmt.Errorf("scenario %s: request %d: body_file %s: %w", path, i+1, bf, err)
		}
	}
	return reqs, nil
}

// ParseForm parses a Request's Form given as query-escaped name=value pairs joined with &.
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
		if r.BodyFile != "" {
			if r.Body != "" {
				return nil, fmt.Errorf("scenario %s: request %d: give body or body_file, not both", name, i+1)
			}
			r.BodyFile, r.Body = "", "-" // LoadScenario checks the file's body
		}
		if _, err := compileRequest(r, 0, true); err != nil {
			return nil, fmt.Errorf("scenario %s: request %d: %w", name, i+1, err)
		}
	}
	return f.Request, nil
}

// compiled is a Request prepared for the wire.
type compiled struct {
	label      string
	index      int
	addr       string
	url        string
	weight     int
	head       bool
	expect     int
	contains   []byte
	tls        bool
	serverName string      // the URL's host, for the certificate
	tlsConf    *tls.Config // set by Run
	static     []byte      // the whole request when it has no placeholders
	line       template    // request line and headers, without Content-Length
	body       template
	hasBody    bool
	bodyType   string // the Content-Type line sent with a body
}

// DialAddr returns the host:port a client dials for the URL raw.
func DialAddr(raw string) (string, error) {
	u, err := splitURL(raw)
	return u.hostport, err
}

type target struct {
	tls            bool
	hostport, host string // host as the URL gives it, for the Host line
	uri            string
}

func splitURL(raw string) (target, error) {
	var t target
	low := strings.ToLower(raw)
	var rest, port string
	switch {
	case strings.HasPrefix(low, "http://"):
		rest, port = raw[len("http://"):], "80"
	case strings.HasPrefix(low, "https://"):
		rest, port, t.tls = raw[len("https://"):], "443", true
	default:
		return t, fmt.Errorf("url %q: want an absolute http:// or https:// URL", raw)
	}
	rest, _, _ = strings.Cut(rest, "#") // the fragment is not sent
	t.host, t.uri = rest, "/"
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		t.host, t.uri = rest[:i], rest[i:]
		if t.uri[0] == '?' {
			t.uri = "/" + t.uri
		}
	}
	if t.host == "" {
		return t, fmt.Errorf("url %q: no host", raw)
	}
	t.hostport = t.host
	if _, _, e := net.SplitHostPort(t.host); e != nil {
		t.hostport = net.JoinHostPort(strings.Trim(t.host, "[]"), port)
	}
	return t, nil
}

func compileRequest(r Request, index int, keepAlive bool) (*compiled, error) {
	u, err := splitURL(r.URL)
	if err != nil {
		return nil, err
	}
	method, err := checkRequest(r)
	if err != nil {
		return nil, err
	}
	c := &compiled{
		label:    cmp.Or(r.Label, method+" "+u.uri),
		index:    index,
		addr:     u.hostport,
		url:      r.URL,
		weight:   max(r.Weight, 1),
		expect:   r.Expect,
		contains: []byte(r.Contains),
		head:     method == "HEAD",
		tls:      u.tls,
	}
	if c.tls {
		c.serverName, _, err = net.SplitHostPort(u.hostport)
		if err != nil {
			return nil, fmt.Errorf("url %q: %w", r.URL, err)
		}
	}
	if c.body, err = compileForm(r.Form); err != nil {
		return nil, err
	}
	// These methods always send a Content-Length: servers may answer 411.
	defines := method == "POST" || method == "PUT" || method == "PATCH"
	c.hasBody = defines || r.Body != ""
	ut, err := compileTemplate(u.uri, nil)
	if err != nil {
		return nil, fmt.Errorf("url: %w", err)
	}
	if len(r.Form) > 0 && !defines {
		sep := "?"
		if strings.Contains(u.uri, "?") {
			sep = "&"
		}
		ut.addLit(sep, nil)
		ut.segs = append(ut.segs, c.body.segs...)
		c.body = template{}
	}
	if r.Body != "" {
		if c.body, err = compileTemplate(r.Body, nil); err != nil {
			return nil, fmt.Errorf("body: %w", err)
		}
	}
	if c.hasBody && (len(r.Form) > 0 || r.Body != "") {
		c.bodyType = "Content-Type: application/x-www-form-urlencoded\r\n"
	}
	if err := c.buildLine(method, ut, u.host, r.Headers, keepAlive); err != nil {
		return nil, err
	}
	if c.line.static() && c.body.static() {
		c.static = c.render(nil, new([]byte), nil)
	}
	return c, nil
}

func checkRequest(r Request) (method string, err error) {
	if r.BodyFile != "" {
		return "", fmt.Errorf("body_file %q: only a scenario file reads body_file (LoadScenario)", r.BodyFile)
	}
	if len(r.Form) > 0 && r.Body != "" {
		return "", fmt.Errorf("give a form or a body, not both")
	}
	method = strings.ToUpper(r.Method)
	if method == "" {
		method = "GET"
		if len(r.Form) > 0 || r.Body != "" {
			method = "POST"
		}
	}
	if strings.ContainsFunc(method, func(c rune) bool { return c < 'A' || c > 'Z' }) {
		return "", fmt.Errorf("bad method %q", r.Method)
	}
	if method == "HEAD" && r.Body != "" {
		return "", fmt.Errorf("a HEAD request takes no body")
	}
	if r.Expect != 0 && (r.Expect < 100 || r.Expect > 599) {
		return "", fmt.Errorf("expect %d: want a status code 100-599", r.Expect)
	}
	if r.Weight < 0 {
		return "", fmt.Errorf("weight %d: want >= 0", r.Weight)
	}
	return method, nil
}

func compileForm(form map[string]string) (template, error) {
	var t template
	for i, k := range slices.Sorted(maps.Keys(form)) {
		if i > 0 {
			t.addLit("&", nil)
		}
		t.addLit(url.QueryEscape(k)+"=", nil)
		vt, err := compileTemplate(form[k], url.QueryEscape)
		if err != nil {
			return template{}, fmt.Errorf("form %q: %w", k, err)
		}
		t.segs = append(t.segs, vt.segs...)
	}
	return t, nil
}

// ParseHeader parses a header given as "Name: value", as curl's -H.
func ParseHeader(s string) (name, value string, err error) {
	name, value, ok := strings.Cut(s, ":")
	if !ok {
		return "", "", fmt.Errorf("header %q: want 'Name: value'", s)
	}
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if err := checkHeader(name, value); err != nil {
		return "", "", err
	}
	return name, value, nil
}

func checkHeader(name, value string) error {
	if name == "" {
		return fmt.Errorf("header %q: empty name", name+": "+value)
	}
	if strings.ContainsFunc(name, func(c rune) bool { return !isTokenChar(c) }) {
		return fmt.Errorf("bad header name %q: want letters, digits and !#$%%&'*+-.^_`|~", name)
	}
	if strings.ContainsAny(value, "\r\n\x00") {
		return fmt.Errorf("header %q: the value holds a line break or NUL", name)
	}
	switch strings.ToLower(name) {
	case "content-length", "transfer-encoding":
		return fmt.Errorf("header %q: the client sets it from the body (give the body with -body, -body-file or -form)", name)
	case "connection":
		return fmt.Errorf("header %q: the client sets it (-keepalive=false sends Connection: close)", name)
	case "host":
		if value == "" || strings.ContainsAny(value, " \t/?#@") {
			return fmt.Errorf("header Host %q: want host or host:port", value)
		}
	}
	return nil
}

func isTokenChar(c rune) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		strings.ContainsRune("!#$%&'*+-.^_`|~", c)
}

func (c *compiled) buildLine(method string, uri template, host string, headers map[string]string, keepAlive bool) error {
	var extra template // the headers after Host and User-Agent
	seen := map[string]string{}
	agent := "bbslab-loadtest"
	for _, k := range slices.Sorted(maps.Keys(headers)) {
		v := headers[k]
		if err := checkHeader(k, v); err != nil {
			return err
		}
		low := strings.ToLower(k)
		if other, ok := seen[low]; ok {
			return fmt.Errorf("header %q given twice (as %q and %q)", k, other, k)
		}
		seen[low] = k
		switch low {
		case "host":
			if strings.Contains(v, "{{") {
				return fmt.Errorf("header Host %q: no placeholders in Host", v)
			}
			host = v
			continue
		case "user-agent":
			agent = ""
		case "content-type":
			c.bodyType = ""
		}
		vt, err := compileTemplate(v, nil)
		if err != nil {
			return fmt.Errorf("header %q: %w", k, err)
		}
		extra.addLit(k+": ", nil)
		extra.segs = append(extra.segs, vt.segs...)
		extra.addLit("\r\n", nil)
	}
	var t template
	t.addLit(method+" ", nil)
	t.segs = append(t.segs, uri.segs...)
	t.addLit(" HTTP/1.1\r\nHost: "+host+"\r\n", nil)
	if agent != "" {
		t.addLit("User-Agent: "+agent+"\r\n", nil)
	}
	if !keepAlive {
		t.addLit("Connection: close\r\n", nil)
	}
	c.line = template{append(t.segs, extra.segs...)}
	return nil
}

// render appends the request to dst, its body rendered in *scratch.
func (c *compiled) render(dst []byte, scratch *[]byte, st *renderState) []byte {
	dst = c.line.render(dst, st)
	if !c.hasBody {
		return append(dst, "\r\n"...)
	}
	*scratch = c.body.render((*scratch)[:0], st)
	body := *scratch
	dst = append(dst, c.bodyType...)
	dst = append(dst, "Content-Length: "...)
	dst = strconv.AppendInt(dst, int64(len(body)), 10)
	dst = append(dst, "\r\n\r\n"...)
	return append(dst, body...)
}
