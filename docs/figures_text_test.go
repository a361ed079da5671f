package docs

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// wrapWidth is where generated text is wrapped, in columns (a wide
// character counts two), as the pages are.
const wrapWidth = 76

// A lang is the language a passage is written in.
type lang int

const (
	en lang = iota
	ja
)

// graph1Text is exercise 1's figures: graph 1 of the article report at
// the exercise's 5 and 10 clients.
func graph1Text(rs *reports, link string, l lang) (string, error) {
	r, err := rs.get("article")
	if err != nil {
		return "", err
	}
	q := &quote{r: r}
	g := q.run("graph 1")
	p5, p10 := q.at(g, 5), q.at(g, 10)
	t5, t10 := q.total(g, p5, "throughput"), q.total(g, p10, "throughput")
	m5, m10 := q.total(g, p5, "mean_ms"), q.total(g, p10, "mean_ms")
	busy, queued, wait := q.server(g, p10, "busy workers"), q.server(g, p10, "queued"), q.server(g, p10, "worker wait")
	workers, cpu := q.flag(g, "workers"), q.capacity(g, p10, l)
	var s string
	if l == ja {
		s = fmt.Sprintf("コミット済みのレポート（%s）では、待ち時間をここと同じく較正したグラフ 1（%s）が 5 クライアントで %s/s、10 クライアントで %s/s（%s 倍）、平均レスポンスタイムは %s から %s（%s 倍）でした。10 クライアントでは実行スレッドは %s 本中 %s 本が使用中、実行スレッド待ちが %s リクエスト、その待ち時間は 1 リクエストあたり %s、%sでした。",
			r.cite(link, l), q.knobs(g), rate(t5), rate(t10), times(t10/t5), ms(m5), ms(m10), times(m10/m5), workers, num(busy), num(queued), ms(wait), cpu)
	} else {
		s = fmt.Sprintf("In the committed report (%s), graph 1 (%s, the wait calibrated as here) gave %s/s at 5 clients and %s/s at 10 (%s x), the mean response time going from %s to %s (%s x); at 10 clients %s of %s workers were busy, %s requests queued for a worker, each waiting %s in that queue, %s.",
			r.cite(link, l), q.knobs(g), rate(t5), rate(t10), times(t10/t5), ms(m5), ms(m10), times(m10/m5), num(busy), workers, num(queued), ms(wait), cpu)
	}
	return wrap(s, wrapWidth), q.err
}

// graphsText is exercise 3's figures: the article report's three graphs
// at their peaks, graph 3 past it, and the claims.
func graphsText(rs *reports, link string, l lang) (string, error) {
	r, err := rs.get("article")
	if err != nil {
		return "", err
	}
	q := &quote{r: r}
	g1, g2, g3 := q.run("graph 1"), q.run("graph 2"), q.run("graph 3")
	p1, p2, p3, last := q.peak(g1), q.peak(g2), q.peak(g3), q.last(g3)
	t1, t2, t3, tl := q.total(g1, p1, "throughput"), q.total(g2, p2, "throughput"), q.total(g3, p3, "throughput"), q.total(g3, last, "throughput")
	busy1, busy2 := q.server(g1, p1, "busy workers"), q.server(g2, p2, "busy workers")
	inUse2, waiting2 := q.server(g2, p2, "connections in use"), q.server(g2, p2, "acquires waiting")
	mean3, meanLast := q.total(g3, p3, "mean_ms"), q.total(g3, last, "mean_ms")
	cpu1, cpu3 := q.capacity(g1, p1, l), q.capacity(g3, p3, l)
	var s string
	if l == ja {
		s = fmt.Sprintf("**期待される結果**（%s）: グラフ 1（%s）のピークは %d クライアントで %s/s、実行スレッドは %s 本中 %s 本が使用中、%s。"+
			"グラフ 2（%s）のピークは %d クライアントで %s/s（グラフ 1 の %s 倍）、実行スレッドは %s 本中 %s 本が使用中、コネクションは %s 本中 %s 本が使用中、取得待ちは平均 %s。"+
			"グラフ 3（%s）のピークは %d クライアントで %s/s（グラフ 1 の %s 倍）、%s。%d クライアントでは %s/s（ピークの %s 倍）で、平均レスポンスタイムはピークの %s 倍（%s から %s）でした。%s",
			r.cite(link, l), q.knobs(g1), p1.Clients, rate(t1), q.flag(g1, "workers"), num(busy1), cpu1,
			q.knobs(g2), p2.Clients, rate(t2), times(t2/t1), q.flag(g2, "workers"), num(busy2), q.flag(g2, "pool"), num(inUse2), num(waiting2),
			q.knobs(g3), p3.Clients, rate(t3), times(t3/t1), cpu3, last.Clients, rate(tl), times(tl/t3), times(meanLast/mean3), ms(mean3), ms(meanLast), claimsText(r, l))
	} else {
		s = fmt.Sprintf("**Expected** (%s): graph 1 (%s) peaked at %s/s at %d clients, %s of %s workers busy, %s. "+
			"Graph 2 (%s) peaked at %s/s at %d clients (%s x graph 1's), %s of %s workers busy, %s of %s connections in use and %s acquires waiting on average. "+
			"Graph 3 (%s) peaked at %s/s at %d clients (%s x graph 1's), %s; at %d clients it served %s/s (%s x its peak) with a mean response time %s x that at its peak (%s against %s). %s",
			r.cite(link, l), q.knobs(g1), rate(t1), p1.Clients, num(busy1), q.flag(g1, "workers"), cpu1,
			q.knobs(g2), rate(t2), p2.Clients, times(t2/t1), num(busy2), q.flag(g2, "workers"), num(inUse2), q.flag(g2, "pool"), num(waiting2),
			q.knobs(g3), rate(t3), p3.Clients, times(t3/t1), cpu3, last.Clients, rate(tl), times(tl/t3), times(meanLast/mean3), ms(meanLast), ms(mean3), claimsText(r, l))
	}
	return wrap(s, wrapWidth), q.err
}

// noPoolText is exercise 6's figures: pooled against a new connection per
// acquire, on SQLite and on PostgreSQL, at their peaks.
func noPoolText(rs *reports, link string, l lang) (string, error) {
	r, err := rs.get("no-pool")
	if err != nil {
		return "", err
	}
	q := &quote{r: r}
	// A pair is a database's pooled and unpooled runs at their peaks.
	type pair struct {
		pooled, none     float64
		atPooled, atNone int
	}
	var pairs []pair
	for _, db := range []string{"SQLite", "PostgreSQL"} {
		pr, nr := q.run(db+" pooled"), q.run(db+" no pool")
		pp, np := q.peak(pr), q.peak(nr)
		pairs = append(pairs, pair{q.total(pr, pp, "throughput"), q.total(nr, np, "throughput"), pp.Clients, np.Clients})
	}
	at := func(p pair) string {
		if p.atPooled == p.atNone {
			if l == ja {
				return fmt.Sprintf("%d クライアント", p.atPooled)
			}
			return fmt.Sprintf("%d clients", p.atPooled)
		}
		if l == ja {
			return fmt.Sprintf("%d と %d クライアント", p.atPooled, p.atNone)
		}
		return fmt.Sprintf("%d and %d clients", p.atPooled, p.atNone)
	}
	sq, pg := pairs[0], pairs[1]
	var s string
	if l == ja {
		s = fmt.Sprintf("**期待される結果**（%s）: それぞれのピーク（%s）でプールあり %s/s、プールなし %s/s で %s 倍（PostgreSQL ではピーク（%s）で %s/s と %s/s、%s 倍）。%s",
			r.cite(link, l), at(sq), rate(sq.pooled), rate(sq.none), times(sq.pooled/sq.none), at(pg), rate(pg.pooled), rate(pg.none), times(pg.pooled/pg.none), claimsText(r, l))
	} else {
		s = fmt.Sprintf("**Expected** (%s): pooled %s/s against %s/s without a pool at their peaks (%s), %s x (on PostgreSQL %s/s against %s/s at %s, %s x). %s",
			r.cite(link, l), rate(sq.pooled), rate(sq.none), at(sq), times(sq.pooled/sq.none), rate(pg.pooled), rate(pg.none), at(pg), times(pg.pooled/pg.none), claimsText(r, l))
	}
	return wrap(s, wrapWidth), q.err
}

// poolSizingText is exercise 7's figures: each pool size's throughput, the
// best in bold.
func poolSizingText(rs *reports, link string, l lang) (string, error) {
	r, err := rs.get("pool-sizing")
	if err != nil {
		return "", err
	}
	q := &quote{r: r}
	var sizes []string
	var tps []float64
	clients := 0
	for _, u := range r.Runs {
		size, ok := strings.CutPrefix(u.Name, "pool ")
		if !ok {
			q.fail("run %q: want runs named \"pool N\"", u.Name)
			continue
		}
		p := q.last(u)
		if clients != 0 && p.Clients != clients {
			q.fail("run %q measured at %d clients, the others at %d", u.Name, p.Clients, clients)
		}
		clients = p.Clients
		sizes = append(sizes, size)
		tps = append(tps, q.total(u, p, "throughput"))
	}
	if len(tps) < 2 {
		q.fail("%d pool sizes; want two or more", len(tps))
		return "", q.err
	}
	best := 0
	for i, v := range tps {
		if v > tps[best] {
			best = i
		}
	}
	figs := make([]string, len(tps))
	for i, v := range tps {
		figs[i] = rate(v)
		if i == best {
			figs[i] = "**" + figs[i] + "**"
		}
	}
	var s string
	if l == ja {
		s = fmt.Sprintf("**期待される結果**（%s）: %d クライアントで、プール数 %s で %s/s。%s",
			r.cite(link, l), clients, strings.Join(sizes, "、"), strings.Join(figs, "、"), claimsText(r, l))
	} else {
		s = fmt.Sprintf("**Expected** (%s): at %d clients %s/s for pools of %s. %s",
			r.cite(link, l), clients, andList(figs), andList(sizes), claimsText(r, l))
	}
	return wrap(s, wrapWidth), q.err
}

// The exercise 8 objective and load, as the page sets them.
const (
	exerciseObjective = "p99<10ms"
	exerciseClients   = 20
)

// sloText is exercise 8's figures: the article report's three settings at
// the exercise's 20 clients against its objective.
func sloText(rs *reports, link string, l lang) (string, error) {
	r, err := rs.get("article")
	if err != nil {
		return "", err
	}
	q := &quote{r: r}
	var parts []string
	bestRun, best := (*reportRun)(nil), -1.0
	for _, name := range []string{"graph 1", "graph 2", "graph 3"} {
		u := q.run(name)
		p := q.at(u, exerciseClients)
		tp := q.total(u, p, "throughput")
		v, pass := q.objective(u, p, exerciseObjective)
		if tp > best {
			bestRun, best = u, tp
		}
		missedFrom := 0
		for _, o := range u.Points {
			for _, k := range o.SLO {
				if k.Objective == exerciseObjective && !k.Pass && missedFrom == 0 {
					missedFrom = o.Clients
				}
			}
		}
		parts = append(parts, sloPart(l, q.knobs(u), tp, v, pass, missedFrom))
	}
	pb := q.at(bestRun, exerciseClients)
	var s string
	if l == ja {
		s = fmt.Sprintf("**期待される結果:** プロジェクトの VM では（%s、AllView、%d クライアント、目標 `%s`）、%s。スループットが最も高かったのは %s で、%sでした。",
			r.cite(link, l), exerciseClients, exerciseObjective, strings.Join(parts, "、"), q.knobs(bestRun), q.capacity(bestRun, pb, l))
	} else {
		s = fmt.Sprintf("**Expected:** on the project's VM (%s, AllView, %d clients, objective `%s`): %s. The most throughput was %s's, %s.",
			r.cite(link, l), exerciseClients, exerciseObjective, strings.Join(parts, "; "), q.knobs(bestRun), q.capacity(bestRun, pb, l))
	}
	return wrap(s, wrapWidth), q.err
}

// sloPart says how one setting did against the objective: at the
// exercise's clients and from which client count it missed it.
func sloPart(l lang, knobs string, tp, p99 float64, pass bool, missedFrom int) string {
	if l == ja {
		verdict := "満たし"
		if !pass {
			verdict = "満たせず"
		}
		from := "（どのクライアント数でも満たしました）"
		if missedFrom != 0 {
			from = fmt.Sprintf("（初めて満たせなかったのは %d クライアント）", missedFrom)
		}
		return fmt.Sprintf("%s は %s/s、p99 %s で目標を%s%s", knobs, rate(tp), ms(p99), verdict, from)
	}
	verdict := "meeting it"
	if !pass {
		verdict = "missing it"
	}
	from := " (and at every client count)"
	if missedFrom != 0 {
		from = fmt.Sprintf(" (first missed at %d clients)", missedFrom)
	}
	return fmt.Sprintf("%s served %s/s with p99 %s, %s%s", knobs, rate(tp), ms(p99), verdict, from)
}

// readmeText is the README's results, a table: the article's reports one
// by one (the README's tour runs article.toml), each linked with its date
// and what it decided of its claims and their controls, and the other
// reports in one row, those with a claim not reproduced named.
func readmeText(rs *reports, link string) (string, error) {
	all, err := rs.all()
	if err != nil {
		return "", err
	}
	var article, others []*report
	for _, r := range all {
		if strings.HasPrefix(r.folder, "article") {
			article = append(article, r)
		} else {
			others = append(others, r)
		}
	}
	slices.SortFunc(article, func(a, b *report) int { return a.Start.Compare(b.Start) })
	ref := func(r *report) string { return fmt.Sprintf("[%s](%s/%s/report.md)", r.folder, link, r.folder) }
	var b strings.Builder
	b.WriteString("| report | ran (UTC) | claims | their controls |\n|---|---|---|---|\n")
	for _, r := range article {
		ran := r.Start.UTC().Format("2006-01-02 15:04")
		if r.Quick {
			ran += ", -quick"
		}
		if d := r.Disturbance; d != nil && !d.Off && d.Remeasured > 0 {
			ran += fmt.Sprintf("; other work took the cores: %d points measured again", d.Remeasured)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", ref(r), ran, claimsPart(r, en), orNone(controlsPart(r, en)))
	}
	if len(others) > 0 {
		var refs, failed, controls []string
		days := map[string][]string{}
		claims, reproduced, withControl, controlFailed := 0, 0, 0, 0
		for _, r := range others {
			refs = append(refs, ref(r))
			d := r.Start.UTC().Format(time.DateOnly)
			days[d] = append(days[d], r.folder)
			for _, c := range r.Claims {
				claims++
				if c.Outcome == "reproduced" {
					reproduced++
				} else {
					failed = append(failed, fmt.Sprintf("%s's %s %s", r.folder, c.ID, c.Outcome))
				}
				switch {
				case c.Control == nil:
				case c.Control.Outcome == "not reproduced":
					withControl++
					controlFailed++
				default:
					withControl++
					controls = append(controls, fmt.Sprintf("%s's %s %s", r.folder, c.ID, c.Control.Outcome))
				}
			}
		}
		ran := ranText(days)
		cl := fmt.Sprintf("%d of %d reproduced", reproduced, claims)
		if len(failed) > 0 {
			cl += "; " + strings.Join(failed, ", ")
		}
		ct := ""
		switch {
		case withControl == 0:
		case controlFailed == claims:
			ct = "every control not reproduced"
		default:
			ct = fmt.Sprintf("%d of %d not reproduced", controlFailed, withControl)
			if len(controls) > 0 {
				ct += "; " + strings.Join(controls, ", ")
			}
			if withControl < claims {
				ct += fmt.Sprintf("; %d claims without one", claims-withControl)
			}
		}
		fmt.Fprintf(&b, "| the other %d: %s | %s | %s | %s |\n", len(others), strings.Join(refs, ", "), ran, cl, orNone(ct))
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// ranText gives the days some reports ran: the day most ran plain, the
// others with the reports that ran then, in order.
func ranText(days map[string][]string) string {
	most := ""
	for d, names := range days {
		if most == "" || len(names) > len(days[most]) || len(names) == len(days[most]) && d < most {
			most = d
		}
	}
	var parts []string
	for _, d := range slices.Sorted(maps.Keys(days)) {
		if d == most {
			parts = append(parts, d)
		} else {
			parts = append(parts, d+" ("+strings.Join(days[d], ", ")+")")
		}
	}
	return strings.Join(parts, "; ")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
