package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bbslab/internal/browsertest"

	"github.com/chromedp/chromedp"
)

// TestBrowser opens the board in headless Chromium, posts through each of
// the three buttons and sees each post at the top, posts a <script> message
// and sees it shown as text and not run, and saves a screenshot as a test
// artifact (kept with go test -artifacts).
func TestBrowser(t *testing.T) {
	ctx := browsertest.New(t, 1000, 1400) // first: skips before building anything
	s := start(t, "-dsn", filepath.Join(t.TempDir(), "bbs.db"), "-seed-posts", "40")
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()

	if err := chromedp.Do(ctx, chromedp.Navigate(s.board)); err != nil {
		t.Fatalf("open the board: %v", err)
	}
	if title, err := chromedp.Run(ctx, chromedp.Title()); err != nil || title != "BBS tuning lab" {
		t.Errorf("title %q (%v); want BBS tuning lab", title, err)
	}

	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(sel))
		if err != nil {
			t.Fatalf("read %s: %v", sel, err)
		}
		return v
	}
	post := func(cmd, name, msg string) (top, topName, meta string) {
		t.Helper()
		err := chromedp.Do(ctx,
			chromedp.Navigate(s.board),
			chromedp.WaitVisible(`textarea[name="message"]`),
			chromedp.SetValue(`input[name="name"]`, name),
			chromedp.SetValue(`textarea[name="message"]`, msg),
			chromedp.Click(`button[value="`+cmd+`"]`),
			chromedp.WaitVisible(`p.posted`),
		)
		if err != nil {
			t.Fatalf("post with %s: %v", cmd, err)
		}
		return text(`ol.posts li:first-child .message`), text(`ol.posts li:first-child .name`), text(`p.meta`)
	}
	for _, cmd := range []string{"AllView", "OnceGetView", "EachGetView"} {
		msg := "ブラウザから " + cmd + " で投稿"
		top, name, meta := post(cmd, "ブラウザ", msg)
		if top != msg || name != "ブラウザ" || !strings.Contains(meta, "read by "+cmd) {
			t.Errorf("after posting with %s: top post %q by %q, %q; want %q by ブラウザ read by %s", cmd, top, name, meta, msg, cmd)
		}
	}

	script := `<script>window.__pwned = 1; document.title = "pwned"</script><b>bold?</b>`
	top, _, _ := post("AllView", `<i>name</i>`, script)
	pwned, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__pwned === 1`))
	if err != nil {
		t.Fatal(err)
	}
	title, err := chromedp.Run(ctx, chromedp.Title())
	if err != nil {
		t.Fatal(err)
	}
	made, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("ol.posts li:first-child .message *, ol.posts li:first-child .name *").length`))
	if err != nil {
		t.Fatal(err)
	}
	if top != script || pwned || title == "pwned" || made != 0 {
		t.Errorf("script message: shown as %q, ran %v, title %q, %d elements made from it; want the literal text, not run", top, pwned, title, made)
	}

	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100: PNG
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(t.ArtifactDir(), "board.png")
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	if len(png) < 1000 {
		t.Errorf("screenshot has %d bytes", len(png))
	}
	t.Logf("screenshot: %s (%d bytes)", shot, len(png))
}
