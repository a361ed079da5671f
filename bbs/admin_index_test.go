package bbs

import (
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	rpprof "runtime/pprof"
	"strings"
	"sync"
	"testing"

	"bbslab/entity/fake"
)

// TestAdminIndexListsEveryRoute registers the admin routes on a fresh
// routeList, as AdminHandler does, and checks that the index page has a
// described line for each: a link for those that answer GET, the path and
// method without a link for the others (POST /admin/reset); then a link
// for each runtime profile; and that every link answers on the admin mux.
func TestAdminIndexListsEveryRoute(t *testing.T) {
	s := New(Options{Store: fake.New(10), Workers: 2, Queue: 2})
	s.SetReady(true)
	ts := httptest.NewServer(s.AdminHandler())
	defer ts.Close()

	resp, body := get(t, ts.URL+"/")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	rows := strings.Split(body, "<tr>")
	row := func(path string) string {
		for _, r := range rows {
			if strings.Contains(r, `<td class="path">`+path+`</td>`) || strings.Contains(r, `<a href="`+path+`">`+path+`</a>`) {
				return r
			}
		}
		return ""
	}

	routes := &routeList{ServeMux: http.NewServeMux()}
	s.adminRoutes(routes)
	if len(routes.patterns) < 12 {
		t.Fatalf("adminRoutes registered %d patterns: %v; want the dozen admin endpoints", len(routes.patterns), routes.patterns)
	}
	for _, p := range routes.patterns {
		method, path, ok := strings.Cut(p, " ")
		if !ok {
			method, path = "any", p
		}
		r := row(path)
		switch {
		case r == "":
			t.Errorf("index page lacks %s", p)
			continue
		case strings.Contains(r, "(not described)"):
			t.Errorf("index page does not describe %s (add it to adminDocs)", p)
		case !strings.Contains(r, `<td class="method">`+method+`</td>`):
			t.Errorf("index row for %s does not say %s: %s", p, method, r)
		}
		linked := strings.Contains(r, `<a href="`+path+`">`)
		if wantLink := method == "GET" || method == "any"; linked != wantLink {
			t.Errorf("index row for %s: linked %v, want %v", p, linked, wantLink)
		}
	}
	for _, p := range rpprof.Profiles() {
		path := "/debug/pprof/" + p.Name()
		if r := row(path); !strings.Contains(r, `<a href="`+path+`">`) {
			t.Errorf("index page lacks a link to the %s profile", p.Name())
		}
	}

	// Every link answers (profiles that take seconds are asked for one,
	// the three side by side: the CPU profile, the trace and fgprof's
	// sampling do not share a profiler).
	var wg sync.WaitGroup
	for _, r := range rows {
		_, rest, ok := strings.Cut(r, `<a href="`)
		if !ok {
			continue
		}
		href, _, _ := strings.Cut(rest, `"`)
		u := ts.URL + html.UnescapeString(href)
		switch href {
		case "/debug/pprof/profile", "/debug/pprof/trace", "/debug/fgprof":
			wg.Go(func() {
				resp, err := http.Get(u + "?seconds=1")
				if err != nil {
					t.Errorf("link %s: %v", href, err)
					return
				}
				defer resp.Body.Close()
				body, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != 200 {
					t.Errorf("link %s: %d %.200s", href, resp.StatusCode, body)
				}
			})
			continue
		}
		if resp, body := get(t, u); resp.StatusCode != 200 {
			t.Errorf("link %s: %d %.200s", href, resp.StatusCode, body)
		}
	}
	wg.Wait()
}
