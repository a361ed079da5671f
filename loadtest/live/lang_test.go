package live_test

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"bbslab/loadtest/live"
)

// TestSay checks the outcomes' Japanese, English as the default and for a
// word the catalogue lacks.
func TestSay(t *testing.T) {
	want := map[live.Outcome]string{live.Reproduced: "再現した", live.NotReproduced: "再現しなかった", live.Inconclusive: "判定不能",
		live.NotMeasured: "測定なし", live.DoesNotDiscriminate: "対照でも成立（識別できない）"}
	for _, o := range live.Outcomes {
		if got := live.Say("ja", string(o)); got != want[o] {
			t.Errorf("Say(ja, %q) = %q; want %q", o, got, want[o])
		}
		for _, lang := range []string{"", "en", "fr"} {
			if got := live.Say(lang, string(o)); got != string(o) {
				t.Errorf("Say(%q, %q) = %q; want it as it is", lang, o, got)
			}
		}
	}
	if got := live.Say("ja", "a claim's own text"); got != "a claim's own text" {
		t.Errorf("Say(ja, a word not in the catalogue) = %q; want it as it is", got)
	}
}

// TestPageWordsInCatalogue checks that every word the page's script says
// through t("…") and every fixed label of the page's header has its
// Japanese in the catalogue, so that no heading stays English by a typo.
func TestPageWordsInCatalogue(t *testing.T) {
	js, err := os.ReadFile("static/dashboard.js")
	if err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile("static/dashboard.html")
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	for _, m := range regexp.MustCompile(`\bt\("([^"]+)"`).FindAllSubmatch(js, -1) {
		words = append(words, string(m[1]))
	}
	for _, m := range regexp.MustCompile(`\bt\([^()"]*\? "([^"]+)" : "([^"]+)"`).FindAllSubmatch(js, -1) {
		words = append(words, string(m[1]), string(m[2]))
	}
	for _, m := range regexp.MustCompile(`(?:panel|setStatus)\("([^"]+)"(?:, "([^"]+)")?`).FindAllSubmatch(js, -1) {
		words = append(words, string(m[1]))
		if len(m[2]) > 0 {
			words = append(words, string(m[2]))
		}
	}
	for _, m := range regexp.MustCompile(`>([a-zA-Z][^<>{]*?)\s*<`).FindAllSubmatch(html, -1) {
		words = append(words, string(m[1]))
	}
	if len(words) < 50 {
		t.Fatalf("found %d words in the page; want the page's headings, labels and statuses (the patterns no longer match?)", len(words))
	}
	for _, w := range words {
		if live.Say("ja", w) == w {
			t.Errorf("%q: no Japanese in the catalogue (lang.go)", w)
		}
	}
}

// TestReportLang checks that live.Lang writes the page's language into
// it, that without it the browser's language decides, and that the page
// carries the catalogue for its script.
func TestReportLang(t *testing.T) {
	for _, tt := range []struct {
		opts []live.ReportOption
		want string
	}{
		{nil, `<html lang="en" data-lang="">`},
		{[]live.ReportOption{live.Lang("ja")}, `<html lang="ja" data-lang="ja">`},
		{[]live.ReportOption{live.Lang("en")}, `<html lang="en" data-lang="en">`},
	} {
		var b bytes.Buffer
		if err := live.WriteReport(&b, nil, "t", tt.opts...); err != nil {
			t.Fatal(err)
		}
		page := b.String()
		if !strings.Contains(page, tt.want) || !strings.Contains(page, `<script id="japanese" type="application/json">{`) || !strings.Contains(page, `"再現した"`) {
			t.Errorf("page lacks %s or the catalogue:\n%.400s", tt.want, page)
		}
	}
}
