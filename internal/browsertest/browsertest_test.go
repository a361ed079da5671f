package browsertest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

func TestBinaryFromEnv(t *testing.T) {
	t.Setenv(ChromiumVar, "/opt/my/chromium")
	if got := Binary(); got != "/opt/my/chromium" {
		t.Errorf("Binary() = %q with %s=/opt/my/chromium; want that path", got, ChromiumVar)
	}
}

// TestBlockOtherOrigins serves a page whose image lives at another origin
// (127.0.0.2:1, where nothing listens) and checks that the image request is
// failed and counted, while the page's own requests (the page and its
// same-origin image) go on and are not counted.
func TestBlockOtherOrigins(t *testing.T) {
	var own atomic.Int64 // requests the server saw for /own.png
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(`<!doctype html><title>blocker</title><img src="/own.png"><img src="http://127.0.0.2:1/x.png">`))
		case "/own.png":
			own.Add(1)
			http.Error(w, "no image", http.StatusNotFound)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close) // registered before New: runs after the browser is closed

	ctx := New(t, 800, 600)
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	b := BlockOtherOrigins(t, ctx, srv.URL)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatalf("open the page: %v", err)
	}
	// Navigate returns at the load event, after both images ended; poll a
	// little in case the event loop delivers the paused event late.
	for range 50 {
		if b.Count() > 0 && own.Load() > 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	foreign := b.Foreign()
	if len(foreign) < 1 || !slices.Contains(foreign, "http://127.0.0.2:1/x.png") {
		t.Errorf("failed requests %v; want http://127.0.0.2:1/x.png among them", foreign)
	}
	for _, u := range foreign {
		if strings.HasPrefix(u, srv.URL) {
			t.Errorf("the page's own request %s was failed and counted", u)
		}
	}
	if own.Load() == 0 {
		t.Errorf("the server never saw /own.png: the page's own requests did not go on")
	}
	if b.Count() != len(foreign) {
		t.Errorf("Count() = %d, Foreign() has %d", b.Count(), len(foreign))
	}

	// A prefix allowed later lets the same request through: it is no
	// longer counted.
	b.Allow("http://127.0.0.2:1/")
	before := b.Count()
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/?again")); err != nil {
		t.Fatalf("open the page again: %v", err)
	}
	if got := b.Count(); got != before {
		t.Errorf("after Allow(http://127.0.0.2:1/) the count went from %d to %d (%v); want no new failed requests", before, got, b.Foreign())
	}
}
