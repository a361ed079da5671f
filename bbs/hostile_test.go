package bbs

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// TestUnknownMethods checks that every method but GET, HEAD and POST gets
// 405 with an Allow header, and stores nothing.
func TestUnknownMethods(t *testing.T) {
	_, st, ts := newTest(t, Options{})
	for _, m := range []string{"PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "PROPFIND", "FOO"} {
		req, _ := http.NewRequest(m, ts.URL+"/bbs?cmd=AllView&message=x", strings.NewReader("cmd=AllView&message=y"))
		resp, _ := do(t, req)
		if resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD, POST" {
			t.Errorf("%s /bbs: %d Allow %q; want 405 with Allow: GET, HEAD, POST", m, resp.StatusCode, resp.Header.Get("Allow"))
		}
	}
	if n := st.Inserts.Load(); n != 0 {
		t.Errorf("unknown methods stored %d posts", n)
	}
}

// TestHostileNumbers sends non-numeric and huge values in every numeric
// parameter: n on the board, posts on the admin reset.
func TestHostileNumbers(t *testing.T) {
	s, st, ts := newTest(t, Options{})
	bad := []string{"abc", "-1", "0", "501", "1e3", "0x10", " 5", "5 ", "5.0", "１０", "99999999999999999999999", "-9223372036854775809", "9223372036854775807", "NaN", "<script>", "%00", "5\x00"}
	for _, v := range bad {
		resp, body := get(t, ts.URL+"/bbs?"+url.Values{"cmd": {"AllView"}, "n": {v}, "format": {"json"}}.Encode())
		var je jsonError
		if err := json.Unmarshal([]byte(body), &je); err != nil || resp.StatusCode != 400 || !strings.HasPrefix(je.Error, "n: ") {
			t.Errorf("n=%q: %d %s; want 400 about n", v, resp.StatusCode, body)
		}
		if strings.Contains(body, "<") {
			t.Errorf("n=%q: JSON error carries a raw '<': %s", v, body)
		}
	}
	for _, v := range []string{"1", "500"} {
		if resp, _ := get(t, ts.URL+"/bbs?cmd=AllView&n="+v); resp.StatusCode != 200 {
			t.Errorf("n=%s: %d; want 200", v, resp.StatusCode)
		}
	}
	as := httptest.NewServer(s.AdminHandler())
	defer as.Close()
	admin := as.URL
	for _, v := range slices.Concat(bad[:len(bad)-3], []string{"10000001", "1.5"}) {
		if v == "0" || v == "501" || v == "9223372036854775807" {
			continue // 0 and 501 are valid reset sizes; the max int is over the limit below
		}
		req, _ := http.NewRequest("POST", admin+"/admin/reset?"+url.Values{"posts": {v}}.Encode(), nil)
		resp, body := do(t, req)
		if resp.StatusCode != 400 || !strings.Contains(body, "posts") {
			t.Errorf("reset posts=%q: %d %s; want 400 about posts", v, resp.StatusCode, body)
		}
	}
	req, _ := http.NewRequest("POST", admin+"/admin/reset?posts=9223372036854775807", nil)
	if resp, _ := do(t, req); resp.StatusCode != 400 {
		t.Errorf("reset posts=max int64: %d; want 400", resp.StatusCode)
	}
	if n := st.Resets.Load(); n != 1 { // the one in fake.New
		t.Errorf("bad reset sizes ran %d resets", n-1)
	}
}

// TestHostileText sends invalid UTF-8, NUL and other control characters,
// over-long fields and unknown commands in every text field, and checks
// that each gets 400 naming the field and that nothing is stored.
func TestHostileText(t *testing.T) {
	_, st, ts := newTest(t, Options{})
	type tc struct {
		form  url.Values
		field string
	}
	var cases []tc
	for _, v := range []string{"\xff", "a\xc3", "\xed\xa0\x80", "a\x00b", "\x01", "\x1b[31m", "a\x7fb", "a\u0085b", "\u2028", strings.Repeat("é", 65)} {
		cases = append(cases, tc{url.Values{"cmd": {"AllView"}, "name": {v}, "message": {"ok"}}, "name"})
	}
	for _, v := range []string{"\xff", "a\x00b", "\x00", "\x08", "\x1b[2J", "a\x7fb", "\u2029", strings.Repeat("字", 1001), " \n\t ", ""} {
		cases = append(cases, tc{url.Values{"cmd": {"AllView"}, "message": {v}}, "message"})
	}
	for _, v := range []string{"allview", "AllView ", "AllView\x00", "../AllView", "<script>alert(1)</script>", "'; DROP TABLE posts; --", strings.Repeat("A", 10000), "\xff"} {
		cases = append(cases, tc{url.Values{"cmd": {v}}, "cmd"})
	}
	for _, c := range cases {
		for _, method := range []string{"GET", "POST"} {
			c.form.Set("format", "json")
			var resp *http.Response
			var body string
			if method == "GET" {
				resp, body = get(t, ts.URL+"/bbs?"+c.form.Encode())
			} else {
				resp, body = post(t, ts.URL+"/bbs", c.form)
			}
			var je jsonError
			if err := json.Unmarshal([]byte(body), &je); err != nil || resp.StatusCode != 400 || !strings.HasPrefix(je.Error, c.field+": ") {
				t.Errorf("%s %.80q: %d %.200s; want 400 about %s", method, c.form.Encode(), resp.StatusCode, body, c.field)
			}
			if len(body) > 300 {
				t.Errorf("%s %.80q: error of %d bytes echoes too much", method, c.form.Encode(), len(body))
			}
		}
	}
	// Exactly at the limits is fine, in characters, not bytes.
	resp, _ := post(t, ts.URL+"/bbs", url.Values{"cmd": {"AllView"}, "name": {strings.Repeat("名", 64)}, "message": {strings.Repeat("字", 1000)}})
	if resp.StatusCode != 200 {
		t.Errorf("64-character name and 1,000-character message: %d; want 200", resp.StatusCode)
	}
	if n := st.Inserts.Load(); n != 1 {
		t.Errorf("stored %d posts; want only the one at the limits", n)
	}
	// A body that is not a form.
	for _, body := range []string{"cmd=AllView&message=%zz", "cmd=AllView;message=x"} {
		req, _ := http.NewRequest("POST", ts.URL+"/bbs?format=json", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if resp, b := do(t, req); resp.StatusCode != 400 || !strings.Contains(b, "request") {
			t.Errorf("body %q: %d %s; want 400", body, resp.StatusCode, b)
		}
	}
}

// TestMarkupEscapedEverywhere posts script and HTML in every field and
// checks that the HTML page and the JSON answer carry them escaped, for all
// three commands, and that the store holds them literally; markup in an
// unknown command or n is escaped in the error too.
func TestMarkupEscapedEverywhere(t *testing.T) {
	_, st, ts := newTest(t, Options{})
	name := `<img src=x onerror=alert(1)>"'&`
	msg := "<script>alert('x')</script><a href=\"javascript:alert(2)\">click</a>\n</div></li><iframe>"
	for _, cmd := range []string{"AllView", "OnceGetView", "EachGetView"} {
		resp, body := post(t, ts.URL+"/bbs", url.Values{"cmd": {cmd}, "name": {name}, "message": {msg}})
		if resp.StatusCode != 200 {
			t.Fatalf("%s post: %d", cmd, resp.StatusCode)
		}
		for _, raw := range []string{"<script", "<img", "<iframe", `<a href="javascript`} {
			if strings.Contains(body, raw) {
				t.Errorf("%s HTML contains raw %s", cmd, raw)
			}
		}
		if !strings.Contains(body, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;") || !strings.Contains(body, "&lt;img src=x onerror=alert(1)&gt;&#34;&#39;&amp;") {
			t.Errorf("%s HTML lacks the escaped message or name", cmd)
		}
		resp, body = get(t, ts.URL+"/bbs?cmd="+cmd+"&format=json&n=3")
		if strings.ContainsAny(body, "<>") || !strings.Contains(body, `\u003cscript\u003e`) || !strings.Contains(body, `\u0026`) {
			t.Errorf("%s JSON does not escape markup: %.300s", cmd, body)
		}
		var got jsonPosts
		if err := json.Unmarshal([]byte(body), &got); err != nil || got.Posts[0].Message != msg || got.Posts[0].Name != name {
			t.Errorf("%s JSON does not decode to the literal post: %v %+v", cmd, err, got.Posts[:1])
		}
	}
	for _, p := range st.Posts()[100:] {
		if p.Message != msg || p.Name != name {
			t.Errorf("stored %q %q; want them literally", p.Name, p.Message)
		}
	}
	for _, q := range []string{"cmd=%3Cscript%3Ealert(1)%3C/script%3E", "cmd=AllView&n=%3Cscript%3E"} {
		resp, body := get(t, ts.URL+"/bbs?"+q)
		if resp.StatusCode != 400 || strings.Contains(body, "<script") || !strings.Contains(body, "&lt;script&gt;") {
			t.Errorf("%s: %d, error page %.300s; want 400 with the markup escaped", q, resp.StatusCode, body)
		}
		resp, body = get(t, ts.URL+"/bbs?format=json&"+q)
		if resp.StatusCode != 400 || strings.ContainsAny(body, "<>") {
			t.Errorf("%s JSON: %d %s; want 400 with the markup escaped", q, resp.StatusCode, body)
		}
	}
}
