package bbs

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"bbslab/commands"
	"bbslab/entity"
)

// encodingJSON is what the board wrote before appendPosts: encoding/json's
// Encoder with HTML escaping.
func encodingJSON(t testing.TB, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(true)
	if err := enc.Encode(v); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	return buf.String()
}

// hand returns what encodeJSON writes for v, failing when appendPosts was
// not the one that wrote it.
func hand(t testing.TB, p jsonPosts) string {
	t.Helper()
	if !plainTimes(p) {
		t.Fatalf("plainTimes(%+v) = false; the test wants the hand-written path", p)
	}
	var buf bytes.Buffer
	if err := encodeJSON(&buf, p); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// tricky strings: HTML-sensitive characters, every escaped control
// character, quotes and backslashes, non-ASCII text, U+2028/U+2029, DEL,
// invalid and truncated UTF-8.
var tricky = []string{
	"", "plain", `<b>bold?</b> & "quotes"`, `back\slash`, "tab\there\nnew\r\b\f",
	"\x00\x01\x1f\x7f", "投稿 1000: 今日は", "line\u2028para\u2029end", "emoji 😀 é",
	"bad \xff\xfe utf8", "cut \xe6\x8a", "\xed\xa0\x80 surrogate", "'single' </script>",
}

// TestAppendPostsMatchesEncodingJSON checks that the hand-written JSON of a
// command's answer is byte for byte what encoding/json writes, for tricky
// strings, with and without a stored post, for no posts and for nil posts.
func TestAppendPostsMatchesEncodingJSON(t *testing.T) {
	at := time.Date(2026, 12, 1, 21, 55, 53, 123456000, time.UTC)
	var posts []entity.Post
	for i, s := range tricky {
		posts = append(posts, entity.Post{No: int64(i*997 - 3), Name: s, Message: strings.Repeat(s, 3), CreatedAt: at.Add(time.Duration(i) * 1001 * time.Millisecond)})
	}
	zone := time.FixedZone("JST", 9*3600)
	tests := []struct {
		name string
		p    jsonPosts
	}{
		{"posts", jsonPosts{Command: "AllView", Posts: posts}},
		{"posted", jsonPosts{Command: "Each<Get>View&", Posted: &posts[2], Posts: posts[:3]}},
		{"empty", jsonPosts{Command: "OnceGetView", Posts: []entity.Post{}}},
		{"nil posts", jsonPosts{Command: "AllView"}},
		{"zero time", jsonPosts{Command: "AllView", Posts: []entity.Post{{}}}},
		{"other zone", jsonPosts{Command: "AllView", Posts: []entity.Post{{No: 1, CreatedAt: at.In(zone)}}}},
		{"whole second", jsonPosts{Command: "AllView", Posts: []entity.Post{{No: 1, CreatedAt: at.Truncate(time.Second)}}}},
		{"cost", jsonPosts{Command: "AllView", Posts: posts[:2], Cost: (&cost{Tally: commands.Tally{Queries: 30, Acquires: 30, AcquireWait: 999, SQLTime: 1_234_567, NetworkWait: 20 * time.Second}, QueueWait: 1, Total: 1<<63 - 1}).json()}},
		{"zero cost", jsonPosts{Command: "AllView", Posts: posts[:1], Cost: (&cost{}).json()}},
		{"tiny and huge cost", jsonPosts{Command: "AllView", Cost: &jsonCost{Queries: -1, QueueMS: 1e-7, AcquireMS: 5e-324, DBMS: 1e21, NetMS: -2.5e-9, TotalMS: 123456789012345678901234.0}}},
	}
	for _, tt := range tests {
		if got, want := hand(t, tt.p), encodingJSON(t, tt.p); got != want {
			t.Errorf("%s: appendPosts =\n%s\nencoding/json =\n%s", tt.name, got, want)
		}
	}
}

// TestAppendPostsKnowsEveryField fails when a field is added to jsonPosts
// or entity.Post, so that appendPosts is taught it (the equality tests only
// see the fields they fill).
func TestAppendPostsKnowsEveryField(t *testing.T) {
	for _, c := range []struct {
		typ    reflect.Type
		fields []string
	}{
		{reflect.TypeFor[jsonPosts](), []string{"command", "posted,omitempty", "posts", "cost,omitempty"}},
		{reflect.TypeFor[jsonCost](), []string{"queries", "acquires", "queue_ms", "acquire_ms", "db_ms", "net_ms", "total_ms"}},
		{reflect.TypeFor[entity.Post](), []string{"no", "name", "message", "created_at"}},
	} {
		var got []string
		for f := range c.typ.Fields() {
			got = append(got, f.Tag.Get("json"))
		}
		if !reflect.DeepEqual(got, c.fields) {
			t.Errorf("%v has JSON fields %q; appendPosts writes %q: teach it the change", c.typ, got, c.fields)
		}
	}
}

// TestEncodeJSONFallsBack checks that times MarshalJSON refuses (a year
// past 9999) and other values still go through encoding/json.
func TestEncodeJSONFallsBack(t *testing.T) {
	var buf bytes.Buffer
	far := jsonPosts{Command: "AllView", Posts: []entity.Post{{CreatedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}}
	if err := encodeJSON(&buf, far); err == nil {
		t.Errorf("encodeJSON(year 10000) = nil error, %q; want encoding/json's error", buf.String())
	}
	buf.Reset()
	e := jsonError{Status: 400, Error: "n <must> be & number"}
	if err := encodeJSON(&buf, e); err != nil || buf.String() != encodingJSON(t, e) {
		t.Errorf("encodeJSON(%+v) = %q, %v; want %q", e, buf.String(), err, encodingJSON(t, e))
	}
}

// FuzzAppendPosts holds appendPosts to encoding/json's bytes for any name,
// message, number and time.
func FuzzAppendPosts(f *testing.F) {
	for i, s := range tricky {
		f.Add(s, tricky[(i+1)%len(tricky)], int64(i), int64(i)*1e15+7)
	}
	f.Fuzz(func(t *testing.T, name, message string, no, ns int64) {
		p := entity.Post{No: no, Name: name, Message: message, CreatedAt: time.Unix(0, ns).UTC()}
		c := cost{Tally: commands.Tally{Queries: int(no % 1000), Acquires: int(ns % 1000), AcquireWait: time.Duration(ns), SQLTime: time.Duration(no ^ ns), NetworkWait: time.Duration(ns / 3)}, QueueWait: time.Duration(no), Total: time.Duration(no / 7)}
		j := jsonPosts{Command: name, Posted: &p, Posts: []entity.Post{p, p}, Cost: c.json()}
		if got, want := hand(t, j), encodingJSON(t, j); got != want {
			t.Errorf("appendPosts =\n%s\nencoding/json =\n%s", got, want)
		}
	})
}

// TestAppendPostsRandom compares the two on random strings drawn from a
// set rich in characters that need escaping, beyond the fuzz seeds that a
// plain go test runs.
func TestAppendPostsRandom(t *testing.T) {
	alphabet := []string{"a", "Z", " ", "<", ">", "&", `"`, `\`, "\n", "\t", "\x00", "\x1f", "\x7f", "é", "投", "😀", "\u2028", "\u2029", "\xff", "\xe6\x8a", "'", "/"}
	r := rand.New(rand.NewPCG(1, 2))
	str := func() string {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	for i := range 2000 {
		p := entity.Post{No: r.Int64() - r.Int64(), Name: str(), Message: str(), CreatedAt: time.Unix(r.Int64N(253402300799)-62135596800, r.Int64N(1e9)).UTC()}
		d := func() time.Duration { return time.Duration(r.Int64N(int64(time.Duration(1) << (r.IntN(62) + 1)))) }
		c := cost{Tally: commands.Tally{Queries: r.IntN(100), Acquires: r.IntN(100), AcquireWait: d(), SQLTime: d(), NetworkWait: d()}, QueueWait: d(), Total: d()}
		j := jsonPosts{Command: str(), Posts: []entity.Post{p}, Cost: c.json()}
		if got, want := hand(t, j), encodingJSON(t, j); got != want {
			t.Fatalf("case %d: appendPosts =\n%s\nencoding/json =\n%s", i, got, want)
		}
	}
}

// BenchmarkPostsJSON compares encoding/json with appendPosts on a page of
// 30 seed posts.
//
//	go test -run '^$' -bench PostsJSON -benchmem ./bbs
func BenchmarkPostsJSON(b *testing.B) {
	p := jsonPosts{Command: "AllView"}
	for i := 1000; i > 970; i-- {
		p.Posts = append(p.Posts, entity.SeedPost(i))
	}
	var buf bytes.Buffer
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(true)
			if err := enc.Encode(p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("appendPosts", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			if err := encodeJSON(&buf, p); err != nil {
				b.Fatal(err)
			}
		}
	})
}
