package live_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"bbslab/internal/browsertest"
	"bbslab/loadtest/live"

	"github.com/chromedp/chromedp"
)

// words are what a test reads of the dashboard's words: the first panel's
// heading, the header's labels, the status, the claims' count and the
// page's lang attribute.
type words struct{ Panel, Labels, Status, Count, Lang string }

func readWords(t *testing.T, ctx context.Context) words {
	t.Helper()
	w, err := chromedp.Run(ctx, chromedp.Evaluate[words](`(function(){
		var x = function (sel) { var e = document.querySelector(sel); return e ? e.textContent : ""; };
		return {Panel: x("#panels h2"), Labels: Array.prototype.map.call(document.querySelectorAll("header .label"), function (e) { return e.textContent; }).join(","),
			Status: x("#status"), Count: x("p.claims-count"), Lang: document.documentElement.lang};
	})()`))
	if err != nil {
		t.Fatalf("read the page's words: %v", err)
	}
	return w
}

var (
	japaneseWords = words{Panel: "スループット 成功したリクエスト / 秒", Labels: "実験,構成,ステップ,クライアント数,経過,残り",
		Status: "完了", Count: "再現した 2 件、対照でも成立（識別できない） 1 件、再現しなかった 1 件", Lang: "ja"}
	englishWords = words{Panel: "Throughput successful requests per second", Labels: "experiment,run,step,clients,elapsed,left",
		Status: "finished", Count: "2 reproduced, 1 does not discriminate, 1 not reproduced", Lang: "en"}
)

// TestDashboardLanguageInBrowser checks the dashboard's words by the
// browser's language: Chromium set to Japanese gets the served page in
// Japanese (headings, labels, status, outcomes), the claims' texts and the
// runs' names as they are; Chromium set to English gets it in Japanese with
// ?lang=ja, and gets the report in Japanese when it was written with
// live.Lang("ja"), in English without. The Japanese page's screenshot is
// kept as a test artifact and, with -update-screenshots, written to
// docs/images/dashboard-ja.png.
func TestDashboardLanguageInBrowser(t *testing.T) {
	// Its own hub, server and browsers; it waits on the frames.
	t.Parallel()
	ja := browsertest.NewIn(t, 1920, 1080, "ja")
	h := live.New()
	sctx, stop := context.WithCancel(context.Background())
	srv, err := live.Serve(sctx, "127.0.0.1:0", h)
	if err != nil {
		t.Fatal(err)
	}
	var feedErr error
	var wg sync.WaitGroup
	begin := make(chan struct{})
	close(begin)
	wg.Go(func() { feedErr = feed(sctx, h, 100*time.Millisecond, 3, begin) })
	defer func() {
		stop()
		wg.Wait()
		if err := srv.Wait(); err != nil {
			t.Error(err)
		}
		if feedErr != nil {
			t.Errorf("feed: %v", feedErr)
		}
	}()
	// waitFinished waits until the page has drawn the end, in either language.
	waitFinished := func(ctx context.Context) {
		t.Helper()
		for range 300 {
			if done, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.dashboard && window.dashboard.done()`)); err == nil && done {
				time.Sleep(300 * time.Millisecond) // the redraw after the last frame
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatal("the page did not finish in 30 s")
	}
	check := func(ctx context.Context, where string, want words) {
		t.Helper()
		if got := readWords(t, ctx); got != want {
			t.Errorf("%s:\n got %+v\nwant %+v", where, got, want)
		}
	}

	jctx, cancel := context.WithTimeout(ja, 90*time.Second)
	defer cancel()
	if err := chromedp.Do(jctx, chromedp.Navigate(srv.URL)); err != nil {
		t.Fatalf("open the dashboard: %v", err)
	}
	waitFinished(jctx)
	check(jctx, "Chromium in Japanese, the served page", japaneseWords)
	claims, err := chromedp.Run(jctx, chromedp.Text(`ul.claims`))
	if err != nil || !strings.Contains(claims, "再現しなかった") || !strings.Contains(claims, "throughput levels off past the pool of 5") {
		t.Errorf("claims list %q (%v); want the outcomes in Japanese and the claims' texts as they are", claims, err)
	}
	png, err := chromedp.Run(jctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(t.ArtifactDir(), "dashboard-ja.png")
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", shot, len(png))
	if *updateScreenshots {
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "images", "dashboard-ja.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	frames, err := h.Frames()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	report := func(name string, opts ...live.ReportOption) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := live.WriteReport(f, frames, "pool-size (synthetic)", opts...); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return "file://" + path
	}
	jaReport, enReport := report("ja.html", live.Lang("ja")), report("en.html")

	en, cancel := context.WithTimeout(browsertest.NewIn(t, 1920, 1080, "en-US"), 90*time.Second)
	defer cancel()
	for _, tt := range []struct {
		url  string
		want words
	}{
		{srv.URL + "?lang=ja", japaneseWords},
		{jaReport, japaneseWords},
		{enReport, englishWords},
		{enReport + "?lang=ja", japaneseWords},
	} {
		if err := chromedp.Do(en, chromedp.Navigate(tt.url)); err != nil {
			t.Fatalf("open %s: %v", tt.url, err)
		}
		waitFinished(en)
		want := tt.want
		if strings.HasPrefix(tt.url, "file:") { // a report says so, not that it finished
			want.Status = map[string]string{"ja": "レポート", "en": "report"}[want.Lang]
		}
		check(en, "Chromium in English, "+tt.url, want)
	}
}
