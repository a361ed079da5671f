package docs

import (
	"fmt"
	"slices"
)

// The clients at which article.toml profiles its three graphs, as the
// profile exercise reads them.
const profileClients = 10

// profileMedians are a run's profiles of one kind at profileClients:
// their repeats, the median total (ns) and each bucket's median share.
type profileMedians struct {
	n       int
	total   float64
	buckets map[string]float64
	first   *reportProfile // the first repeat's, for its top functions
}

// profiles returns u's profiles of kind at profileClients, by their medians
// over the repeats.
func (q *quote) profiles(u *reportRun, kind string) profileMedians {
	var totals []float64
	shares := map[string][]float64{}
	m := profileMedians{buckets: map[string]float64{}}
	for _, p := range u.Profiles {
		if p.Kind != kind || p.Clients != profileClients {
			continue
		}
		if m.first == nil || p.Repeat < m.first.Repeat {
			m.first = p
		}
		m.n++
		totals = append(totals, p.Total)
		for _, b := range p.Buckets {
			shares[b.Name] = append(shares[b.Name], b.Share)
		}
	}
	if m.n == 0 {
		q.fail("run %q: no %s profile at %d clients", u.Name, kind, profileClients)
		return profileMedians{buckets: map[string]float64{}, first: &reportProfile{}}
	}
	m.total = median(totals)
	for name, v := range shares {
		m.buckets[name] = median(v)
	}
	return m
}

// bucket returns the median share of a bucket, in %.
func (q *quote) bucket(u *reportRun, m profileMedians, kind, name string) float64 {
	v, ok := m.buckets[name]
	if !ok {
		q.fail("run %q: its %s profiles have no bucket %q", u.Name, kind, name)
	}
	return 100 * v
}

// top returns the first repeat's i-th top function and its share, in %.
func (q *quote) top(u *reportRun, m profileMedians, i int) (string, float64) {
	if m.first == nil || i >= len(m.first.Top) {
		q.fail("run %q: no top function %d", u.Name, i+1)
		return "", 0
	}
	return m.first.Top[i].Name, 100 * m.first.Top[i].Share
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// profileText is the profile exercise's figures: the article report's
// wall-clock profiles of graphs 1, 2 and 3 by bucket, and the CPU
// profiles of graphs 2 and 3, at 10 clients.
func profileText(rs *reports, link string, l lang) (string, error) {
	r, err := rs.get("article")
	if err != nil {
		return "", err
	}
	q := &quote{r: r}
	g1, g2, g3 := q.run("graph 1"), q.run("graph 2"), q.run("graph 3")
	f1, f2, f3 := q.profiles(g1, "fgprof"), q.profiles(g2, "fgprof"), q.profiles(g3, "fgprof")
	c2, c3 := q.profiles(g2, "cpu"), q.profiles(g3, "cpu")
	const worker, conn, db, sql, other = "waiting for a worker", "waiting for a connection", "the database's wait", "in SQL", "elsewhere"
	w1 := q.bucket(g1, f1, "fgprof", worker)
	a2, d2 := q.bucket(g2, f2, "fgprof", conn), q.bucket(g2, f2, "fgprof", db)
	a3, d3 := q.bucket(g3, f3, "fgprof", conn), q.bucket(g3, f3, "fgprof", db)
	s2, s3 := q.bucket(g2, c2, "cpu", sql), q.bucket(g3, c3, "cpu", sql)
	o2, o3 := q.bucket(g2, c2, "cpu", other), q.bucket(g3, c3, "cpu", other)
	top1, share1 := q.top(g3, c3, 0)
	top2, share2 := q.top(g3, c3, 1)
	cpu2, cpu3 := c2.total/1e9, c3.total/1e9
	var s string
	if l == ja {
		s = fmt.Sprintf("**期待される結果**（%s、%d クライアントのプロファイル、%d 回の中央値）: ウォールクロック（fgprof）では、グラフ 2 のリクエストは時間の %s をコネクション待ち（`acquireConn`）に、%s をデータベースの待ち（`networkWait`）に使い、グラフ 3 ではそれぞれ %s と %s でした。グラフ 1 は %s を実行スレッド待ち（`waitForWorker`）に使っています。"+
			"CPU プロファイルでは、掲示板の CPU はグラフ 2 で %.2f 秒、グラフ 3 で %.2f 秒（%s 倍）、そのうち SQL の中（`inSQL`）が %s と %s、それ以外（ページを作って書き出す）が %s と %s でした。グラフ 3 の上位の関数は %s（%.1f %%）と %s（%.1f %%）です。",
			r.cite(link, l), profileClients, f2.n, pct(a2), pct(d2), pct(a3), pct(d3), pct(w1),
			cpu2, cpu3, times(cpu3/cpu2), pct(s2), pct(s3), pct(o2), pct(o3), "`"+top1+"`", share1, "`"+top2+"`", share2)
	} else {
		s = fmt.Sprintf("**Expected** (%s, the profiles at %d clients, the median of %d): in the wall-clock (fgprof) profiles graph 2's requests spent %s of their time waiting for a connection (`acquireConn`) and %s in the database's wait (`networkWait`), graph 3's %s and %s; graph 1's waited %s for a worker (`waitForWorker`). "+
			"In the CPU profiles the board used %.2f s of CPU in graph 2 and %.2f s in graph 3 (%s x), %s and %s of it in SQL (`inSQL`), %s and %s elsewhere (building and writing the page); graph 3's top functions were %s (%.1f %%) and %s (%.1f %%).",
			r.cite(link, l), profileClients, f2.n, pct(a2), pct(d2), pct(a3), pct(d3), pct(w1),
			cpu2, cpu3, times(cpu3/cpu2), pct(s2), pct(s3), pct(o2), pct(o3), "`"+top1+"`", share1, "`"+top2+"`", share2)
	}
	return wrap(s, wrapWidth), q.err
}
