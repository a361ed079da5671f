package report

import (
	"fmt"
	"regexp"
	"strings"

	"bbslab/loadtest/live"
	"bbslab/loadtest/outcome"
)

// reportJapanese is the report's Japanese by its English, {0} standing for a
// name or a figure; claims' outcomes are the dashboard's (live.Say).
var reportJapanese = map[string]string{
	"Experiment: {0}": "実験: {0}", "Claims": "主張",
	"Each claim's control is its checks where the effect is absent: a claim is reproduced only when its control is not.": "各主張の対照は、効果がない条件での同じ検査である。対照が再現しないときに限り、主張は再現したとする。",
	"Re-measured points": "再測定した点", "Calibration": "較正", "Calibration redone before sweep {0}": "スイープ {0} の前にやり直した較正",
	"Tuning": "チューニング", "Environment": "環境", "Verdict": "判定", "Disk under the database": "データベースのディスク",
	"Profiles side by side": "プロファイルの比較", "{0}, side by side": "{0} の比較", "Charts": "グラフ", "{0} profile{1}": "{0} プロファイル{1}", "Run {0}": "構成 {0}",
	"Throughput against clients": "クライアント数とスループット", "Response time against clients (mean solid, p99 dashed)": "クライアント数とレスポンスタイム（平均は実線、p99 は破線）",
	"Throughput by run": "構成ごとのスループット", "Response time by run (mean and p99)": "構成ごとのレスポンスタイム（平均と p99）",
	"Latency by percentile (each run's last step)":           "パーセンタイルごとのレスポンスタイム（各構成の最後のステップ）",
	"The first requests one by one (first step of each run)": "最初のリクエストを 1 件ずつ（各構成の最初のステップ）",
	"p50 and p99 per 100 ms from the first request":          "最初のリクエストから 100 ms ごとの p50 と p99",
	"Throughput per second, warm-up included":                "1 秒ごとのスループット（ウォームアップを含む）",
	"p99 per second, warm-up included":                       "1 秒ごとの p99（ウォームアップを含む）",
	"Server: {0}":                                            "サーバ: {0}", "control": "対照", "PASS": "合格", "FAIL": "不合格", ". ": "。",
}

// say returns s in lang with {0}, {1}… replaced by args.
func say(lang, s string, args ...any) string {
	if lang == "ja" {
		if t, ok := reportJapanese[s]; ok {
			s = t
		} else {
			s = live.Say(lang, s)
		}
	}
	for i, a := range args {
		s = strings.ReplaceAll(s, fmt.Sprintf("{%d}", i), fmt.Sprint(a))
	}
	return s
}

// sayAgain returns the English line s of a catalogue entry in lang, figures kept.
func sayAgain(lang, s string) string {
	if lang != "ja" {
		return s
	}
	if t, ok := reportJapanese[s]; ok {
		return t
	}
	for en, ja := range reportJapanese {
		if i := strings.Index(en, "{0}"); i >= 0 && strings.Count(en, "{") == 1 &&
			len(s) > len(en)-3 && strings.HasPrefix(s, en[:i]) && strings.HasSuffix(s, en[i+3:]) {
			return strings.Replace(ja, "{0}", s[i:len(s)-len(en)+i+3], 1)
		}
	}
	return s
}

// wordFuncs are the report page's functions that say words in lang.
func wordFuncs(lang string) map[string]any {
	return map[string]any{
		"say":      func(s any, args ...any) string { return say(lang, fmt.Sprint(s), args...) },
		"sayAgain": func(s string) string { return sayAgain(lang, s) },
		"claimCounts": func(cs []outcome.Claim) string {
			return sayCounts(lang, (&outcome.Result{Claims: cs}).ClaimCounts())
		},
	}
}

var (
	mdHeading = regexp.MustCompile(`(?m)^(#+ |!\[)(.+?)(\]\(|$)`)
	mdOutcome = regexp.MustCompile(`(\*\*(?:[^*\n]*: )?)(` + strings.Join(outcomeWords(), "|") + `)\*\*`)
	mdCount   = regexp.MustCompile(`(?m)^((?:\d+ (?:` + strings.Join(outcomeWords(), "|") + `)(?:, )?)+)\. (.+)$`)
	mdSLO     = regexp.MustCompile(`(?m)^(- [^:\n]+: )(PASS|FAIL) `)
)

func outcomeWords() []string {
	var w []string
	for _, o := range live.Outcomes {
		w = append(w, regexp.QuoteMeta(string(o)))
	}
	return w
}

// sayMarkdown returns the English report.md in lang. It works on the finished
// text so that the functions writing the sections stay in one language.
func sayMarkdown(lang, md string) string {
	if lang != "ja" {
		return md
	}
	md = mdHeading.ReplaceAllStringFunc(md, func(m string) string {
		p := mdHeading.FindStringSubmatch(m)
		return p[1] + sayAgain(lang, p[2]) + p[3]
	})
	md = mdCount.ReplaceAllStringFunc(md, func(m string) string {
		p := mdCount.FindStringSubmatch(m)
		return sayCounts(lang, p[1]) + "。" + sayAgain(lang, p[2])
	})
	md = mdOutcome.ReplaceAllStringFunc(md, func(m string) string {
		p := mdOutcome.FindStringSubmatch(m)
		return p[1] + say(lang, p[2]) + "**"
	})
	return mdSLO.ReplaceAllStringFunc(md, func(m string) string {
		p := mdSLO.FindStringSubmatch(m)
		return p[1] + say(lang, p[2]) + " "
	})
}

// sayCounts returns outcome counts, "7 reproduced, 1 not reproduced", in lang.
func sayCounts(lang, counts string) string {
	if lang != "ja" || counts == "" {
		return counts
	}
	var parts []string
	for _, c := range strings.Split(counts, ", ") {
		n, o, _ := strings.Cut(c, " ")
		parts = append(parts, say(lang, "{0} {1}", n, say(lang, o)))
	}
	return strings.Join(parts, say(lang, ", "))
}
