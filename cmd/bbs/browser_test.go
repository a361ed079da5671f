package main

import (
	"context"
	"flag"
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
	// Its own board and browser, beside the other parallel tests (soaks, languages).
	t.Parallel()
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

var updateScreenshots = flag.Bool("update-screenshots", false, "write the board's Japanese screenshot to docs/images/board-ja.png")

// TestBrowserLanguage opens the board in Chromium set to Japanese and to
// English: the labels follow the browser's language (its Accept-Language),
// and -lang ja shows them in Japanese to the English browser too; the posts
// are the same in both. The Japanese page's screenshot is kept as a test
// artifact and, with -update-screenshots, written to docs/images/board-ja.png.
func TestBrowserLanguage(t *testing.T) {
	// Its own boards and browsers, beside the other parallel tests.
	t.Parallel()
	if testing.Short() {
		t.Skip("browser test: long; runs without -short")
	}
	db := filepath.Join(t.TempDir(), "bbs.db")
	auto := start(t, "-dsn", db, "-seed-posts", "40", "-page-size", "8") // a short page for the screenshot
	tests := []struct {
		browser, board string
		title, label   string
		posted         string // the line after a post, its figure aside
	}{
		{"ja", auto.board, "掲示板チューニング・ラボ", "名前", "を保存しました。"},
		{"en-US", auto.board, "BBS tuning lab", "Name", "Stored post #"},
	}
	for _, tt := range tests {
		t.Run(tt.browser, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(browsertest.NewIn(t, 1000, 1400, tt.browser), 90*time.Second)
			defer cancel()
			look := func(url, title, label, posted string) {
				t.Helper()
				if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
					t.Fatalf("open %s: %v", url, err)
				}
				got, _ := chromedp.Run(ctx, chromedp.Title())
				gotLabel, _ := chromedp.Run(ctx, chromedp.Text(`label`))
				accept, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`navigator.languages.join(",")`))
				err := chromedp.Do(ctx,
					chromedp.SetValue(`input[name="name"]`, "ブラウザ"),
					chromedp.SetValue(`textarea[name="message"]`, "言語の確認"),
					chromedp.Click(`button[value="AllView"]`),
					chromedp.WaitVisible(`p.posted`),
				)
				if err != nil {
					t.Fatalf("post on %s: %v", url, err)
				}
				gotPosted, _ := chromedp.Run(ctx, chromedp.Text(`p.posted`))
				if got != title || strings.TrimSpace(gotLabel) != label || !strings.Contains(gotPosted, posted) {
					t.Errorf("browser %s (navigator.languages %s), %s: title %q, label %q, %q; want %q, %q, %q",
						tt.browser, accept, url, got, gotLabel, gotPosted, title, label, posted)
				}
			}
			look(tt.board, tt.title, tt.label, tt.posted)
			if tt.browser != "ja" {
				// -lang ja: Japanese whatever the browser asks for.
				ja := start(t, "-dsn", filepath.Join(t.TempDir(), "ja.db"), "-seed-posts", "40", "-lang", "ja")
				look(ja.board, "掲示板チューニング・ラボ", "名前", "を保存しました。")
				return
			}
			png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatal(err)
			}
			shot := filepath.Join(t.ArtifactDir(), "board-ja.png")
			if err := os.WriteFile(shot, png, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("screenshot: %s (%d bytes)", shot, len(png))
			if *updateScreenshots {
				if err := os.WriteFile(filepath.Join("..", "..", "docs", "images", "board-ja.png"), png, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
