// Package browsertest starts headless Chromium for the browser tests (the
// board's page, the live dashboard, the dashboard of a real run):
//
//	ctx := browsertest.New(t, 1280, 800)
//	blocked := browsertest.BlockOtherOrigins(t, ctx, srv.URL)
//	err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/bbs"))
//
// New starts the browser with one set of options; BlockOtherOrigins fails
// every request a page makes outside the origins a test allows, counting
// them, so that a page that reaches for a CDN, a font or a beacon fails its
// test instead of going unnoticed. Without a Chromium binary the tests
// skip, or fail under CI=true (see internal/testenv), so that a green CI
// run means the browser tests ran.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"bbslab/internal/testenv"
)

// ChromiumVar names the environment variable that points at the Chromium
// binary to use, ahead of the names looked up on PATH.
const ChromiumVar = "BBS_CHROMIUM"

// Binary finds a Chromium binary: $BBS_CHROMIUM, then chromium,
// chromium-browser, google-chrome and headless-shell on PATH. It returns ""
// when there is none.
func Binary() string {
	if p := os.Getenv(ChromiumVar); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// New starts headless Chromium with a window of width by height pixels and
// returns the context of its first tab, the browser already running. It
// skips the test under -short (a browser test takes seconds to start
// Chromium) and when no binary is found (fails it under CI=true). The
// context carries no timeout: the first Run starts the browser and must not
// have one, so callers add their own with context.WithTimeout. The browser
// is closed by t.Cleanup, so cleanups registered before New (a server the
// page talks to) run after the browser is gone. The browser is set to
// American English, whatever the machine's language, as the pages' English
// words the tests read need.
func New(t testing.TB, width, height int) context.Context {
	t.Helper()
	return NewIn(t, width, height, "en-US")
}

// NewIn is New with the browser set to the language lang (a BCP 47 tag
// such as "ja" or "en-US"): navigator.language and the Accept-Language its
// requests send, as a browser so set has them.
func NewIn(t testing.TB, width, height int, lang string) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test: long; runs without -short")
	}
	bin := Binary()
	testenv.Need(t, bin != "", "no chromium binary found (apt-get install chromium, or set "+ChromiumVar+"): skipping the browser test")
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		// No traffic of the browser's own (QUIC probes, updates, sync)
		// beside the page's: the tests count the page's requests.
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	}
	opts = append(opts, chromedp.Flag("lang", lang), chromedp.Flag("accept-lang", lang))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(cancelTab)
	// The first Run starts the browser and must not carry a timeout: a
	// timeout on it would end the browser when it fires.
	if _, err := chromedp.Run(ctx, chromedp.Title()); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	return ctx
}

// Blocker lets a tab's requests to the allowed prefixes go on and fails
// every other, recording its URL.
type Blocker struct {
	mu      sync.Mutex
	allowed []string
	foreign []string
}

// Allow adds a prefix (an origin such as http://127.0.0.1:8080, or a
// file:// URL) whose requests go on from now.
func (b *Blocker) Allow(prefix string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.allowed = append(b.allowed, prefix)
}

// Allowed returns the prefixes allowed so far.
func (b *Blocker) Allowed() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.allowed)
}

// Count returns how many requests were failed so far.
func (b *Blocker) Count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.foreign)
}

// Foreign returns the URLs of the requests failed so far, in order.
func (b *Blocker) Foreign() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.foreign)
}

// ours reports whether url starts with an allowed prefix.
func (b *Blocker) ours(url string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.ContainsFunc(b.allowed, func(p string) bool { return strings.HasPrefix(url, p) })
}

// BlockOtherOrigins pauses every request of ctx's tab (Fetch.enable with the
// pattern "*"): a request whose URL starts with one of allowed (or a prefix
// added later with Allow) is continued, any other is failed as blocked by
// the client and recorded. An empty prefix is not allowed: it would let
// everything through. Interception ends when ctx ends or at t.Cleanup.
func BlockOtherOrigins(t testing.TB, ctx context.Context, allowed ...string) *Blocker {
	t.Helper()
	if slices.Contains(allowed, "") {
		t.Fatal("browsertest.BlockOtherOrigins: an empty allowed prefix would let every request through")
	}
	b := &Blocker{allowed: slices.Clone(allowed)}
	ictx, stop := context.WithCancel(ctx)
	paused := chromedp.Events(ictx, fetch.RequestPaused)
	if _, err := chromedp.Call(ictx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}); err != nil {
		stop()
		t.Fatalf("enable request interception: %v", err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			if b.ours(ev.Request.URL) {
				// An error here means the tab is closing; the test sees
				// that on its own next call.
				chromedp.Call(ictx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
				continue
			}
			b.mu.Lock()
			b.foreign = append(b.foreign, ev.Request.URL)
			b.mu.Unlock()
			chromedp.Call(ictx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
		}
	})
	// Ends the event iterator before waiting for the loop.
	t.Cleanup(func() { stop(); wg.Wait() })
	return b
}
