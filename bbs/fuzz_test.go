package bbs

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"bbslab/entity/fake"
)

// FuzzBoard sends arbitrary methods, query strings, bodies and Accept
// headers to the board handler on the fake store and checks that the
// answer is one of the statuses the board documents, never a 500, and
// never carries raw markup from the request.
func FuzzBoard(f *testing.F) {
	f.Add("GET", "cmd=AllView&n=5", "", "")
	f.Add("POST", "", "cmd=EachGetView&name=%E5%B1%B1%E7%94%B0&message=hi", "application/json")
	f.Add("POST", "format=json", "cmd=OnceGetView&message=%3Cscript%3Ealert(1)%3C/script%3E", "")
	f.Add("POST", "", "cmd=AllView&message=%ff%00", "text/html")
	f.Add("PUT", "cmd=AllView", "x", "")
	f.Add("GET", "cmd=%3Cb%3E&n=99999999999999999999", "", "*/*")
	f.Add("POST", "n=0;cmd=AllView", "message=%zz", "")
	st := fake.New(50)
	s := New(Options{Store: st, Workers: 2, Queue: 2})
	s.SetReady(true)
	h := s.Handler()
	f.Fuzz(func(t *testing.T, method, query, body, accept string) {
		req, err := http.NewRequest(method, "/bbs", strings.NewReader(body))
		if err != nil {
			return // not a request a server could receive
		}
		req.URL.RawQuery = query
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", accept)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		switch w.Code {
		case 200, 400, 405, 413:
		default:
			t.Fatalf("%s /bbs?%q body %q: status %d", method, query, body, w.Code)
		}
		out := w.Body.Bytes()
		if strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
			if bytes.ContainsAny(out, "<>") {
				t.Fatalf("%s /bbs?%q body %q: JSON with raw markup: %s", method, query, body, out)
			}
		} else if bytes.Contains(bytes.ToLower(out), []byte("<script")) {
			t.Fatalf("%s /bbs?%q body %q: HTML with a script element", method, query, body)
		}
		if len(st.Posts()) > 10000 {
			st.Reset(t.Context(), 50)
		}
	})
}
