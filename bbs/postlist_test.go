package bbs

import (
	"bytes"
	"testing"

	"bbslab/entity"
)

func BenchmarkRenderPage(b *testing.B) {
	posts := make([]entity.Post, 30)
	for i := range posts {
		posts[i] = entity.SeedPost(1000 - i)
	}
	p := page{Command: "AllView", N: 30, Posts: posts}
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := templates.ExecuteTemplate(&buf, "bbs.html", p); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPostListEscapes checks the hand-written list against hostile text.
func TestPostListEscapes(t *testing.T) {
	p := page{Posts: []entity.Post{{No: 7, Name: `"><script>x</script>`, Message: "a & b < c > d ' e \" f\n</div>"}}}
	got := string(p.PostList())
	if bytes.Contains([]byte(got), []byte("<script>")) || bytes.Contains([]byte(got), []byte(`"><script`)) {
		t.Errorf("PostList left markup unescaped: %s", got)
	}
	for _, want := range []string{`id="post-7"`, "&#34;&gt;&lt;script&gt;x&lt;/script&gt;", "a &amp; b &lt; c &gt; d &#39; e &#34; f\n&lt;/div&gt;"} {
		if !bytes.Contains([]byte(got), []byte(want)) {
			t.Errorf("PostList lacks %q: %s", want, got)
		}
	}
}
