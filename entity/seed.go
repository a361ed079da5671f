package entity

import (
	"fmt"
	"time"
)

// SeedEpoch is the time of post 0 of the deterministic seed: post i was
// written i minutes later.
var SeedEpoch = time.Date(2002, time.April, 1, 9, 0, 0, 0, time.UTC)

var seedNames = []string{"山田", "佐藤", "鈴木", "alice", "高橋", "bob", "田中", "carol"}

var seedTexts = []string{
	"はじめまして。チューニングの勉強会から来ました。よろしくお願いします。",
	"コネクションプールの最小数と最大数は同じにしておくのが良いそうです。",
	"Throughput doubled after we gave the pool as many connections as workers.",
	"スレッド数を増やしても、DB の接続待ちが増えるだけでした。",
	"Is the N+1 query really that slow on an embedded database? Let's measure it.",
	"応答時間は平均ではなく分布で見ましょう。p99.9 が大事です。",
	"<b>bold?</b> & \"quotes\" must be escaped by the page, not by the store.",
	"今日は負荷試験の前にデータを初期化するのを忘れませんでした。",
}

// SeedPost returns post i (1-based) of the deterministic seed. The same i
// always gives the same post, on every database: Reset stores exactly these.
func SeedPost(i int) Post {
	return Post{
		No:        int64(i),
		Name:      seedNames[cycle(i, len(seedNames))],
		Message:   fmt.Sprintf("投稿 %d: %s", i, seedTexts[cycle(i, len(seedTexts))]),
		CreatedAt: SeedEpoch.Add(time.Duration(i) * time.Minute),
	}
}

// cycle maps i = 1, 2, ... to 0, 1, ..., n-1, 0, ... (also for i < 1).
func cycle(i, n int) int {
	k := (i - 1) % n
	if k < 0 {
		k += n
	}
	return k
}
