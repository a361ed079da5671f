package room

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"bbslab/internal/browsertest"
)

var updateScreenshot = flag.Bool("update-screenshot", false, "write the room's screenshot to docs/images/room.png")

// TestRoomBrowser opens the room's page in headless Chromium after three
// laptops posted: a row per laptop, the one claim they disagree on
// marked, every chart drawn, nothing fetched from elsewhere; a fourth
// laptop's result appears without a reload by hand. The screenshot is a
// test artifact, and docs/images/room.png with -update-screenshot.
func TestRoomBrowser(t *testing.T) {
	// Its own room and browser; it waits for the page to reload itself.
	t.Parallel()
	ctx := browsertest.New(t, 1400, 1000)
	_, srv, _ := serve(t, Options{Dir: t.TempDir()})
	threeLaptops(t, srv.URL)
	blocked := browsertest.BlockOtherOrigins(t, ctx, srv.URL)
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()

	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(`#laptops`)); err != nil {
		t.Fatalf("open the room: %v", err)
	}
	count := func(js string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](js))
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		return n
	}
	if n := count(`document.querySelectorAll("#laptops tr").length - 1`); n != 3 {
		t.Errorf("%d laptops' rows; want 3", n)
	}
	if n := count(`document.querySelectorAll("table.claims tr.disagree").length`); n != 1 {
		t.Errorf("%d claims marked as disagreed on; want 1 (g1-flat)", n)
	}
	charts := `[...document.images].filter(i => i.complete && i.naturalWidth > 0).length`
	want := count(`document.images.length`)
	for range 100 {
		if count(charts) == want {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n := count(charts); want < 6 || n != want {
		t.Errorf("%d of %d charts drawn; want all of at least 6", n, want)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(t.ArtifactDir(), "room.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	if *updateScreenshot {
		doc := filepath.Join("..", "..", "docs", "images", "room.png")
		if err := os.WriteFile(doc, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("updated %s", doc)
	}

	send(t, srv.URL, "dan", writeFile(t, "run.json", runFile(t)))
	rows := `document.querySelectorAll("#laptops tr").length - 1`
	for range 4 * RefreshSeconds * 10 {
		// A read while the page reloads fails; the next one sees the new page.
		if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](rows)); err == nil && n == 4 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n := count(rows); n != 4 {
		t.Errorf("%d laptops' rows %d s after a fourth posted; want the page to have reloaded itself with 4", n, 4*RefreshSeconds)
	}
	if blocked.Count() != 0 {
		t.Errorf("the page fetched from other origins: %q", blocked.Foreign())
	}
}
