package docs

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// claimsText says what a report decided of its claims and their controls,
// as a sentence: "Claims: 8 of 8 reproduced, every control not
// reproduced."
func claimsText(r *report, l lang) string {
	ct := controlsPart(r, l)
	if l == ja {
		if ct == "" {
			ct = "対照（control）を持つクレームはありません"
		}
		return "クレーム: " + claimsPart(r, l) + "、" + ct + "。"
	}
	if ct == "" {
		ct = "no claim with a control"
	}
	return "Claims: " + claimsPart(r, l) + ", " + ct + "."
}

// outcomes lists the outcomes in the order the pages give them (those of
// loadtest/live, whose order the reports' headlines keep).
var outcomes = []string{"reproduced", "does not discriminate", "not reproduced", "inconclusive", "not measured"}

// byOutcome groups the claims' ids by outcome, or their controls' with
// control; unknown outcomes after the known ones.
func byOutcome(r *report, control bool) ([]string, map[string][]string) {
	order, out := slices.Clone(outcomes), map[string][]string{}
	for _, c := range r.Claims {
		o := c.Outcome
		if control {
			if c.Control == nil {
				continue
			}
			o = c.Control.Outcome
		}
		if !slices.Contains(order, o) {
			order = append(order, o)
		}
		out[o] = append(out[o], c.ID)
	}
	return order, out
}

// claimsPart says how many of a report's claims had each outcome, naming
// those not reproduced: "7 of 8 reproduced, 1 not reproduced (g2-no-gain)".
func claimsPart(r *report, l lang) string {
	order, ids := byOutcome(r, false)
	n := len(r.Claims)
	var parts []string
	if l == ja {
		parts = append(parts, fmt.Sprintf("%d 件中 %d 件が「reproduced」", n, len(ids["reproduced"])))
	} else {
		parts = append(parts, fmt.Sprintf("%d of %d reproduced", len(ids["reproduced"]), n))
	}
	for _, o := range order[1:] {
		parts = append(parts, outcomeCount(l, o, ids[o], true)...)
	}
	return strings.Join(parts, sep(l))
}

// controlsPart says how the claims' controls came out: "every control not
// reproduced", or each outcome counted, those other than not reproduced
// named; "" when no claim has one.
func controlsPart(r *report, l lang) string {
	order, ids := byOutcome(r, true)
	controls := 0
	for _, v := range ids {
		controls += len(v)
	}
	switch {
	case controls == 0:
		return ""
	case len(ids["not reproduced"]) == len(r.Claims) && l == ja:
		return "対照（control）はすべて「not reproduced」"
	case len(ids["not reproduced"]) == len(r.Claims):
		return "every control not reproduced"
	}
	var parts []string
	for _, o := range order {
		parts = append(parts, outcomeCount(l, o, ids[o], o != "not reproduced")...)
	}
	if none := len(r.Claims) - controls; none > 0 && l == ja {
		parts = append(parts, fmt.Sprintf("%d 件は対照なし", none))
	} else if none > 0 {
		parts = append(parts, fmt.Sprintf("%d without one", none))
	}
	if l == ja {
		return "対照（control）は " + strings.Join(parts, "、")
	}
	return "controls: " + strings.Join(parts, ", ")
}

// outcomeCount says "2 not reproduced (a, b)", naming them with named;
// nothing for no ids.
func outcomeCount(l lang, outcome string, ids []string, named bool) []string {
	switch {
	case len(ids) == 0:
		return nil
	case l == ja && named:
		return []string{fmt.Sprintf("%d 件が「%s」（%s）", len(ids), outcome, strings.Join(ids, "、"))}
	case l == ja:
		return []string{fmt.Sprintf("%d 件が「%s」", len(ids), outcome)}
	case named:
		return []string{fmt.Sprintf("%d %s (%s)", len(ids), outcome, strings.Join(ids, ", "))}
	}
	return []string{fmt.Sprintf("%d %s", len(ids), outcome)}
}

func sep(l lang) string {
	if l == ja {
		return "、"
	}
	return ", "
}

// rate prints a throughput: whole requests with thousands separated from
// 100/s, three figures below.
func rate(v float64) string {
	if v < 100 {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	s := strconv.FormatFloat(v, 'f', 0, 64)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func times(v float64) string { return fmt.Sprintf("%.2f", v) }
func pct(v float64) string   { return fmt.Sprintf("%.0f %%", v) }
func ms(v float64) string    { return fmt.Sprintf("%.2f ms", v) }

// num prints a reading with three figures at most.
func num(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// andList joins "a, b and c".
func andList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// wrap breaks text into lines of at most width columns (a wide character
// counts two) at spaces, after Japanese commas, full stops and closing
// parentheses and before opening ones, never so that a line starts as a
// Markdown block would (a list item, a heading, a quote, an HTML tag).
func wrap(text string, width int) string {
	var lines []string
	var line, word strings.Builder
	lineW, wordW := 0, 0
	flush := func(space bool) {
		if word.Len() == 0 {
			return
		}
		w := word.String()
		if lineW > 0 && lineW+wordW > width && !startsBlock(w) {
			lines = append(lines, strings.TrimRight(line.String(), " "))
			line.Reset()
			lineW = 0
		}
		line.WriteString(w)
		lineW += wordW
		if space {
			line.WriteString(" ")
			lineW++
		}
		word.Reset()
		wordW = 0
	}
	rs := []rune(text)
	for i, r := range rs {
		if r == ' ' {
			flush(true)
			continue
		}
		word.WriteRune(r)
		wordW += runeWidth(r)
		if i+1 < len(rs) && (strings.ContainsRune("、。）", r) || runeWidth(r) == 2 && rs[i+1] == '（') && !strings.ContainsRune("、。）", rs[i+1]) {
			flush(false)
		}
	}
	flush(false)
	if line.Len() > 0 {
		lines = append(lines, strings.TrimRight(line.String(), " "))
	}
	return strings.Join(lines, "\n")
}

// startsBlock says whether a line beginning with w would start a Markdown
// block instead of going on with the paragraph: a list item, a heading, a
// quote, an HTML block, a setext underline.
func startsBlock(w string) bool {
	if w == "-" || w == "+" || w == "*" || strings.HasPrefix(w, "#") || strings.HasPrefix(w, ">") || strings.HasPrefix(w, "<") || strings.HasPrefix(w, "=") {
		return true
	}
	n := strings.TrimLeft(w, "0123456789")
	return len(n) < len(w) && (n == "." || n == ")")
}

func runeWidth(r rune) int {
	if r >= 0x1100 && (unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || r >= 0x3000 && r <= 0x303f || r >= 0xff00 && r <= 0xffef) {
		return 2
	}
	return 1
}

// TestClaimCounts holds the claims' and controls' wording to the outcomes.
func TestClaimCounts(t *testing.T) {
	claim := func(id, o, control string) reportClaim {
		c := reportClaim{ID: id, Outcome: o}
		if control != "" {
			c.Control = &outcome{control}
		}
		return c
	}
	for _, c := range []struct {
		claims []reportClaim
		en, ja string
	}{
		{[]reportClaim{claim("a", "reproduced", ""), claim("b", "reproduced", "")},
			"Claims: 2 of 2 reproduced, no claim with a control.",
			"クレーム: 2 件中 2 件が「reproduced」、対照（control）を持つクレームはありません。"},
		{[]reportClaim{claim("a", "reproduced", "not reproduced"), claim("b", "reproduced", "not reproduced")},
			"Claims: 2 of 2 reproduced, every control not reproduced.",
			"クレーム: 2 件中 2 件が「reproduced」、対照（control）はすべて「not reproduced」。"},
		{[]reportClaim{claim("a", "reproduced", "not reproduced"), claim("b", "does not discriminate", "reproduced"), claim("c", "not reproduced", ""), claim("d", "not reproduced", "not measured")},
			"Claims: 1 of 4 reproduced, 1 does not discriminate (b), 2 not reproduced (c, d), controls: 1 reproduced (b), 1 not reproduced, 1 not measured (d), 1 without one.",
			"クレーム: 4 件中 1 件が「reproduced」、1 件が「does not discriminate」（b）、2 件が「not reproduced」（c、d）、対照（control）は 1 件が「reproduced」（b）、1 件が「not reproduced」、1 件が「not measured」（d）、1 件は対照なし。"},
	} {
		r := &report{Claims: c.claims}
		if got := claimsText(r, en); got != c.en {
			t.Errorf("claimsText(%+v, en) = %q; want %q", c.claims, got, c.en)
		}
		if got := claimsText(r, ja); got != c.ja {
			t.Errorf("claimsText(%+v, ja) = %q; want %q", c.claims, got, c.ja)
		}
	}
}

// TestWrap: lines within the width, at spaces or after Japanese
// punctuation, none starting a Markdown block, the words kept.
func TestWrap(t *testing.T) {
	text := "graph 1 peaked at 3,961/s - at 20 clients # not a heading 1. not a list > not a quote <b>not html</b> " +
		"グラフ 1（5/5）のピークは 20 クライアントで 3,961/s、実行スレッドは 5 本中 5.00 本が使用中、掲示板の CPU は待ち時間なしのときの 66 %。"
	got := wrap(text, 30)
	for _, line := range strings.Split(got, "\n") {
		w := 0
		for _, r := range line {
			w += runeWidth(r)
		}
		if f := strings.Fields(line); w > 30 && len(f) > 1 && !startsBlock(f[len(f)-1]) {
			t.Errorf("wrap: line %q is %d columns; want at most 30", line, w)
		}
		if f := strings.Fields(line); len(f) > 0 && startsBlock(f[0]) {
			t.Errorf("wrap: line %q starts a Markdown block", line)
		}
	}
	if strings.ReplaceAll(strings.ReplaceAll(got, "\n", ""), " ", "") != strings.ReplaceAll(text, " ", "") {
		t.Errorf("wrap(%q) = %q; want the same words", text, got)
	}
}
