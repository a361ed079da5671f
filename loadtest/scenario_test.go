package loadtest

import (
	"math/rand/v2"
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

func TestSplitURLRejectsHTTPS(t *testing.T) {
	_, _, _, err := splitURL("https://example.com/")
	if err == nil || !strings.Contains(err.Error(), "https is not supported") {
		t.Errorf("splitURL(https) error = %v; want one saying https is not supported", err)
	}
	if _, _, _, err := splitURL("example.com"); err == nil {
		t.Errorf("splitURL without scheme succeeded")
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
		{"[[request]]\nurl = \"https://h/\"\n", "https"},
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
