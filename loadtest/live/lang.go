package live

// japanese is the page's Japanese by its English message ID ({0}, {1} stand
// for figures); a word not here stays English.
var japanese = map[string]string{
	string(Reproduced):          "再現した",
	string(NotReproduced):       "再現しなかった",
	string(Inconclusive):        "判定不能",
	string(NotMeasured):         "測定なし",
	string(DoesNotDiscriminate): "対照でも成立（識別できない）",
	"{0} {1}":                   "{1} {0} 件", // a count of claims with an outcome
	", ":                        "、",         // between the counts

	"Load dashboard": "負荷ダッシュボード", "{0} – load dashboard": "{0} – 負荷ダッシュボード",
	"experiment": "実験", "run": "構成", "step": "ステップ", "clients": "クライアント数", "elapsed": "経過", "left": "残り",
	"{0} of {1}": "{0} / {1}", "last second": "直近 1 秒", "whole experiment, 1 step": "実験全体、1 ステップ",
	"whole experiment, {0} steps": "実験全体、{0} ステップ",
	"throughput, req/s":           "スループット、req/s", "p99, ms": "p99、ms", "errors this second": "この 1 秒のエラー",
	"peak throughput, req/s": "最大スループット、req/s", "p99 at the peak, ms": "最大時の p99、ms", "errors measured": "測定したエラー",
	"requests measured": "測定したリクエスト", "duration": "所要時間",
	"{0} at 1 client": "{0}、クライアント数 1", "{0} at {1} clients": "{0}、クライアント数 {1}",
	"loading": "読み込み中", "connecting": "接続中", "connected": "接続済み", "reconnecting": "再接続中",
	"finished": "完了", "report": "レポート", "calibrating": "較正中",
	"On this machine": "このマシンで", "what the experiment did": "実験が行ったこと",

	"Throughput": "スループット", "throughput": "スループット", "successful requests per second": "成功したリクエスト / 秒",
	"Response time": "レスポンスタイム", "p50 / p90 / p95 / p99 of the second, ms": "その 1 秒の p50 / p90 / p95 / p99、ms",
	"What requests are doing now": "リクエストがいましていること", "mean requests in each state, stacked": "状態ごとの平均リクエスト数（積み上げ）",
	"requests":              "リクエスト数",
	"Throughput vs clients": "クライアント数とスループット", "one curve per run, a point per step": "構成ごとに 1 本、ステップごとに 1 点",
	"Response time vs clients": "クライアント数とレスポンスタイム", "mean (solid) and p99 (dashed), ms": "平均（実線）と p99（破線）、ms",
	"Claims": "主張", "outcomes as they become decidable": "判定できた順に", "No claim decided yet.": "まだ判定した主張はありません。",
	"Errors": "エラー", "by kind, per second": "種類別、1 秒あたり", "server": "サーバ",
	"not available on this OS":           "この OS では取れない",
	"Tuning path: workers × connections": "チューニングの経路: 実行スレッド × コネクション",
	"a point per step (its number, throughput and the limit named); the best ringed": "ステップごとに 1 点（番号、スループット、限界の要因）、最良を丸で囲む",
	"connections (pool)": "コネクション（プール）", "workers": "実行スレッド",
	"{0}: {1} steps, last {2} ({3}): {4}": "{0}: {1} ステップ、最後 {2}（{3}）: {4}",

	// The board's panels and request states, as loadtest/contract names them.
	"CPU, %":                        "CPU 使用率、%",
	"Workers: mean busy and queued": "実行スレッド: 使用中と実行キュー待ちの平均",
	"DB pool: mean connections in use and acquires waiting": "コネクションプール: 使用中と取得待ちの平均",
	"Waits per request, ms":                                 "1 リクエストあたりの待ち時間、ms",
	"GC cycles per second":                                  "1 秒あたりの GC 回数",
	"waiting for a worker":                                  "実行スレッド待ち",
	"waiting for a connection":                              "コネクション待ち",
	"in SQL":                                                "SQL 実行中",
	"elsewhere":                                             "その他",
}

// Say returns the dashboard's words for the English s in lang ("ja", else English).
func Say(lang, s string) string {
	if t, ok := japanese[s]; ok && lang == "ja" {
		return t
	}
	return s
}
