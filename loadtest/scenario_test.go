package loadtest

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

func TestTemplateRender(t *testing.T) {
	var seq atomic.Int64
	st := &renderState{seq: &seq, client: 7, rng: rand.New(rand.NewPCG(1, 2))}
	tm, err := compileTemplate("m {{seq}} c{{client}} r{{rand 5 5}}", nil)
	if err != nil {
		t.Fatal(err)
	}
	got1 := string(tm.render(nil, st))
	got2 := string(tm.render(nil, st))
	if got1 != "m 1 c7 r5" || got2 != "m 2 c7 r5" {
		t.Errorf("render = %q, %q; want %q, %q", got1, got2, "m 1 c7 r5", "m 2 c7 r5")
	}
	for _, bad := range []string{"{{seq", "{{nope}}", "{{rand 5 1}}", "{{rand a b}}"} {
		if _, err := compileTemplate(bad, nil); err == nil {
			t.Errorf("compileTemplate(%q) succeeded; want an error", bad)
		}
	}
}

func TestCompileRequestWire(t *testing.T) {
	c, err := compileRequest(Request{URL: "http://example.com:8080/post", Form: map[string]string{"name": "a b", "message": "m{{seq}}&"}}, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	if c.static != nil {
		t.Fatalf("request with {{seq}} was rendered statically")
	}
	var seq atomic.Int64
	st := &renderState{seq: &seq, client: 1, rng: rand.New(rand.NewPCG(1, 1))}
	var buf, scratch []byte
	got := string(c.render(buf, &scratch, st))
	want := "POST /post HTTP/1.1\r\nHost: example.com:8080\r\nUser-Agent: bbslab-loadtest\r\n" +
		"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 22\r\n\r\nmessage=m1%26&name=a+b"
	if got != want {
		t.Errorf("render =\n%q\nwant\n%q", got, want)
	}
	// A worker keeps both buffers: later requests allocate nothing.
	buf = c.render(nil, &scratch, st)
	if n := testing.AllocsPerRun(100, func() { buf = c.render(buf[:0], &scratch, st) }); n != 0 {
		t.Errorf("render with kept buffers: %v allocations per request; want 0", n)
	}
	if c.addr != "example.com:8080" {
		t.Errorf("addr = %q", c.addr)
	}
	g, err := compileRequest(Request{Method: "GET", URL: "http://h/x?a=1", Form: map[string]string{"b": "2"}}, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(g.static); !strings.HasPrefix(s, "GET /x?a=1&b=2 HTTP/1.1\r\nHost: h\r\n") || !strings.Contains(s, "Connection: close\r\n") || g.addr != "h:80" {
		t.Errorf("GET with form, no keep-alive: %q addr %q", s, g.addr)
	}
}

func TestSplitURL(t *testing.T) {
	tests := []struct {
		in, hostport, uri string
		tls               bool
	}{
		{"http://example.com/a?b", "example.com:80", "/a?b", false},
		{"https://example.com/", "example.com:443", "/", true},
		{"HTTPS://example.com:8443", "example.com:8443", "/", true},
		{"https://[::1]/x", "[::1]:443", "/x", true},
	}
	for _, tt := range tests {
		u, err := splitURL(tt.in)
		if err != nil || u.hostport != tt.hostport || u.uri != tt.uri || u.tls != tt.tls {
			t.Errorf("splitURL(%q) = %+v, %v; want %s %s tls=%v", tt.in, u, err, tt.hostport, tt.uri, tt.tls)
		}
	}
	for _, bad := range []string{"example.com", "ftp://h/", "https:///x"} {
		if _, err := splitURL(bad); err == nil {
			t.Errorf("splitURL(%q) succeeded; want an error", bad)
		}
	}
}

// wire renders the request r as a client sends it (first of its kind).
func wire(t *testing.T, r Request) string {
	t.Helper()
	c, err := compileRequest(r, 0, true)
	if err != nil {
		t.Fatalf("compileRequest(%+v): %v", r, err)
	}
	var seq atomic.Int64
	st := &renderState{seq: &seq, client: 1, rng: rand.New(rand.NewPCG(1, 1))}
	return string(c.render(nil, new([]byte), st))
}

func TestCompileRequestBodyAndHeaders(t *testing.T) {
	tests := []struct {
		name string
		r    Request
		want string
	}{
		{"body makes a POST with its length, typed as curl -d types it",
			Request{URL: "http://h/p", Body: "a=1&n={{seq}}"},
			"POST /p HTTP/1.1\r\nHost: h\r\nUser-Agent: bbslab-loadtest\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 7\r\n\r\na=1&n=1"},
		{"a Content-Type header replaces the default; other headers sorted",
			Request{URL: "http://h/p", Method: "put", Body: `{"x":1}`, Headers: map[string]string{"X-B": "2", "Content-Type": "application/json", "X-A": "c{{client}}"}},
			"PUT /p HTTP/1.1\r\nHost: h\r\nUser-Agent: bbslab-loadtest\r\nContent-Type: application/json\r\nX-A: c1\r\nX-B: 2\r\nContent-Length: 7\r\n\r\n{\"x\":1}"},
		{"Host header sets the Host line, User-Agent replaces the client's",
			Request{URL: "https://127.0.0.1:8443/", Headers: map[string]string{"host": "board.example", "User-Agent": "curl/8"}},
			"GET / HTTP/1.1\r\nHost: board.example\r\nUser-Agent: curl/8\r\n\r\n"},
		{"POST without a body says Content-Length: 0",
			Request{URL: "http://h/", Method: "POST"},
			"POST / HTTP/1.1\r\nHost: h\r\nUser-Agent: bbslab-loadtest\r\nContent-Length: 0\r\n\r\n"},
		{"a body on a GET is sent",
			Request{URL: "http://h/", Method: "GET", Body: "q"},
			"GET / HTTP/1.1\r\nHost: h\r\nUser-Agent: bbslab-loadtest\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1\r\n\r\nq"},
	}
	for _, tt := range tests {
		if got := wire(t, tt.r); got != tt.want {
			t.Errorf("%s: wire =\n%q\nwant\n%q", tt.name, got, tt.want)
		}
	}
	bad := []struct {
		r    Request
		want string
	}{
		{Request{URL: "http://h/", Form: map[string]string{"a": "1"}, Body: "b"}, "not both"},
		{Request{URL: "http://h/", Method: "HEAD", Body: "b"}, "HEAD"},
		{Request{URL: "http://h/", Headers: map[string]string{"Content-Length": "5"}}, "Content-Length"},
		{Request{URL: "http://h/", Headers: map[string]string{"transfer-encoding": "chunked"}}, "transfer-encoding"},
		{Request{URL: "http://h/", Headers: map[string]string{"Connection": "close"}}, "-keepalive=false"},
		{Request{URL: "http://h/", Headers: map[string]string{"X A": "1"}}, "bad header name"},
		{Request{URL: "http://h/", Headers: map[string]string{"X-A": "1\r\nEvil: 2"}}, "line break"},
		{Request{URL: "http://h/", Headers: map[string]string{"Host": "a b"}}, "Host"},
		{Request{URL: "http://h/", Headers: map[string]string{"x-a": "1", "X-A": "2"}}, "twice"},
		{Request{URL: "http://h/", BodyFile: "b.json"}, "body_file"},
		{Request{URL: "http://h/", Body: "{{nope}}"}, "body"},
	}
	for _, tt := range bad {
		if _, err := compileRequest(tt.r, 0, true); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("compileRequest(%+v) error = %v; want one naming %q", tt.r, err, tt.want)
		}
	}
}

func TestParseHeader(t *testing.T) {
	n, v, err := ParseHeader("X-Token:  abc: def ")
	if err != nil || n != "X-Token" || v != "abc: def" {
		t.Errorf("ParseHeader = %q, %q, %v; want X-Token, \"abc: def\"", n, v, err)
	}
	for _, in := range []string{"NoColon", ": v", "Content-Length: 3", "Bad Name: v", "Host: "} {
		if _, _, err := ParseHeader(in); err == nil {
			t.Errorf("ParseHeader(%q) succeeded; want an error", in)
		}
	}
}

func TestLoadScenarioBodyFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "body.json"), []byte(`{"n":{{seq}}}`), 0o644)
	path := filepath.Join(dir, "s.toml")
	os.WriteFile(path, []byte("[[request]]\nurl = \"http://h/\"\nbody_file = \"body.json\"\nheaders = { Content-Type = \"application/json\" }\n"), 0o644)
	rs, err := LoadScenario(path)
	if err != nil || len(rs) != 1 || rs[0].Body != `{"n":{{seq}}}` || rs[0].BodyFile != "" {
		t.Fatalf("LoadScenario(body_file) = %+v, %v; want the file's body", rs, err)
	}
	if got := wire(t, rs[0]); !strings.HasPrefix(got, "POST / HTTP/1.1\r\n") || !strings.HasSuffix(got, "Content-Length: 7\r\n\r\n{\"n\":1}") {
		t.Errorf("body_file request on the wire = %q", got)
	}
	for _, tt := range []struct{ toml, want string }{
		{"[[request]]\nurl = \"http://h/\"\nbody_file = \"missing.json\"\n", "missing.json"},
		{"[[request]]\nurl = \"http://h/\"\nbody = \"x\"\nbody_file = \"body.json\"\n", "not both"},
	} {
		os.WriteFile(path, []byte(tt.toml), 0o644)
		if _, err := LoadScenario(path); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("LoadScenario(%q) error = %v; want one naming %q", tt.toml, err, tt.want)
		}
	}
}

func TestParseScenario(t *testing.T) {
	good := `
[[request]]
label = "view"
url = "http://127.0.0.1:8080/"
weight = 9
expect = 200
contains = "<html"

[[request]]
label = "post"
method = "POST"
url = "http://127.0.0.1:8080/post"
form = { name = "user{{client}}", message = "hello {{seq}}" }
`
	rs, err := ParseScenario("good.toml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].Weight != 9 || rs[1].Form["message"] != "hello {{seq}}" {
		t.Errorf("ParseScenario = %+v", rs)
	}
	tests := []struct{ in, want string }{
		{"[[request]]\nurl = \"http://h/\"\nwieght = 3\n", "wieght"},
		{"[[request]]\nurl = \"ftp://h/\"\n", "https://"},
		{"[[request]]\nurl = \"http://h/{{bad}}\"\n", "bad"},
		{"", "no [[request]]"},
		{"[[request]\n", "bad.toml"},
	}
	for _, tt := range tests {
		_, err := ParseScenario("bad.toml", []byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseScenario(%q) error = %v; want one naming %q", tt.in, err, tt.want)
		}
	}
}

func TestParseForm(t *testing.T) {
	got, err := ParseForm("name=u{{client}}&message=a%20b&empty=")
	if err != nil || len(got) != 3 || got["name"] != "u{{client}}" || got["message"] != "a b" || got["empty"] != "" {
		t.Errorf("ParseForm(three parameters) = %q, %v", got, err)
	}
	for _, in := range []string{"=v", "a=%zz", "%zz=v", ""} {
		if _, err := ParseForm(in); err == nil || !strings.Contains(err.Error(), "bad parameter") {
			t.Errorf("ParseForm(%q) = %v; want a bad parameter error", in, err)
		}
	}
}
