package entity

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestSeedPost(t *testing.T) {
	for _, i := range []int{1, 2, 30, 100_000} {
		p := SeedPost(i)
		if p != SeedPost(i) {
			t.Errorf("SeedPost(%d) differs between calls", i)
		}
		if p.No != int64(i) || p.Name == "" {
			t.Errorf("SeedPost(%d) = %+v; want number %d and a name", i, p, i)
		}
		if n := utf8.RuneCountInString(p.Message); n < 30 || n > 120 || !strings.HasPrefix(p.Message, "投稿 ") {
			t.Errorf("SeedPost(%d).Message = %q (%d chars); want 30-120 chars starting 投稿", i, p.Message, n)
		}
		if want := SeedEpoch.Add(time.Duration(i) * time.Minute); !p.CreatedAt.Equal(want) {
			t.Errorf("SeedPost(%d).CreatedAt = %v; want %v", i, p.CreatedAt, want)
		}
	}
	if SeedPost(1).Name == SeedPost(2).Name {
		t.Errorf("SeedPost(1) and SeedPost(2) have the same name; want names to cycle")
	}
}
