package report

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"bbslab/loadtest/live"
)

func hasJapanese(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han) })
}

// TestSayMarkdown checks the Japanese of report.md's headings, captions
// and verdict words on lines as the report writes them, and that English
// and the names and texts it quotes are left as they are.
func TestSayMarkdown(t *testing.T) {
	md := `# Experiment: article

## Claims

2 reproduced, 1 does not discriminate, 1 not reproduced. Each claim's control is its checks where the effect is absent: a claim is reproduced only when its control is not.

- **g1: reproduced**. Throughput is not reproduced by more workers (source: 記事の図1)
  - control (no pool): **not reproduced**
- **g2: does not discriminate** (quick: single measurement, no spread). text

## Calibration redone before sweep 2

### cpu, side by side

## Run pool-10

- 5 clients: PASS p99<5s (measured 0.1)
- 10 clients: FAIL p99<5s (measured 9)

![Server: busy workers](charts/reading-1.png)
`
	want := `# 実験: article

## 主張

再現した 2 件、対照でも成立（識別できない） 1 件、再現しなかった 1 件。各主張の対照は、効果がない条件での同じ検査である。対照が再現しないときに限り、主張は再現したとする。

- **g1: 再現した**. Throughput is not reproduced by more workers (source: 記事の図1)
  - control (no pool): **再現しなかった**
- **g2: 対照でも成立（識別できない）** (quick: single measurement, no spread). text

## スイープ 2 の前にやり直した較正

### cpu の比較

## 構成 pool-10

- 5 clients: 合格 p99<5s (measured 0.1)
- 10 clients: 不合格 p99<5s (measured 9)

![サーバ: busy workers](charts/reading-1.png)
`
	if got := sayMarkdown("ja", md); got != want {
		t.Errorf("sayMarkdown(ja):\n%s\nwant:\n%s", got, want)
	}
	for _, lang := range []string{"", "en"} {
		if got := sayMarkdown(lang, md); got != md {
			t.Errorf("sayMarkdown(%q) changed the report:\n%s", lang, got)
		}
	}
}

// TestReportInJapanese writes the committed article experiment's report
// in Japanese and in English: in Japanese every heading of report.md and
// index.html is Japanese, and so is every outcome, the claims' texts
// standing as they are; in English none is.
func TestReportInJapanese(t *testing.T) {
	heading := regexp.MustCompile(`(?m)^#+ (.*)$|<h[123]>(.*?)</h[123]>`)
	for _, lang := range []string{"ja", "en"} {
		t.Run(lang, func(t *testing.T) {
			t.Parallel() // two reports written at once, each from its own copy of the result
			res, err := committedResult("article")
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Claims) == 0 {
				t.Fatal("the committed article report has no claims")
			}
			dir := t.TempDir()
			if err := Write(dir, res, Options{Lang: lang, Frames: []live.Frame{}}); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"report.md", "index.html"} {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				doc, quote := string(b), func(s string) string { return s }
				if f == "index.html" {
					// The report's own sections: the dashboard's script says its words.
					_, doc, _ = strings.Cut(doc, `<section id="appendix">`)
					quote = html.EscapeString
				}
				hs := heading.FindAllStringSubmatch(doc, -1)
				if len(hs) < 5 {
					t.Fatalf("%s %s: %d headings", lang, f, len(hs))
				}
				for _, h := range hs {
					text := h[1] + h[2]
					if hasJapanese(text) != (lang == "ja") {
						t.Errorf("%s %s: heading %q", lang, f, text)
					}
				}
				for _, c := range res.Claims {
					word := live.Say(lang, string(c.Outcome))
					if !strings.Contains(doc, c.ID+": "+word) || !strings.Contains(doc, quote(c.Text)) {
						t.Errorf("%s %s: lacks %q and the claim's text %q", lang, f, c.ID+": "+word, c.Text)
					}
				}
			}
			page, _ := os.ReadFile(filepath.Join(dir, "index.html"))
			if want := `<html lang="` + lang + `" data-lang="` + lang + `">`; !strings.Contains(string(page), want) {
				t.Errorf("%s index.html: the dashboard lacks %s", lang, want)
			}
		})
	}
}
