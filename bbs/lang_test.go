package bbs

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"unicode"

	"bbslab/entity/fake"

	"golang.org/x/text/language"
)

// TestLabels checks that every label has both languages and that the
// Japanese is Japanese, not a copy of the English.
func TestLabels(t *testing.T) {
	for id, w := range labels {
		if w[english] == "" || w[japanese] == "" || w[english] == w[japanese] {
			t.Errorf("label %s = %q: want English and a different Japanese", id, w)
		}
		if !strings.ContainsFunc(w[japanese], func(r rune) bool { return unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han) }) {
			t.Errorf("label %s: Japanese %q has no kana or kanji", id, w[japanese])
		}
	}
}

// TestPageLanguage checks the board page's labels by -lang and by the
// browser's Accept-Language: English by default and when the browser
// prefers English or names neither language, Japanese when it prefers
// Japanese or when -lang is ja, whatever the browser says.
func TestPageLanguage(t *testing.T) {
	en := []string{"<label>Name <input", "View only:", "newest posts, read by AllView.", "This page cost 1 query on 1 connection"}
	ja := []string{"<label>名前 <input", "表示のみ:", "最新の投稿 30 件（AllView で取得）。", "このページのコスト: クエリ 1 回（コネクション取得 1 回）"}
	tests := []struct {
		lang, accept string
		want         []string
		vary         bool
	}{
		{"", "", en, true},
		{"", "ja", ja, true},
		{"auto", "ja-JP,ja;q=0.9,en-US;q=0.8,en;q=0.7", ja, true},
		{"", "en-US,en;q=0.9,ja;q=0.8", en, true},
		{"", "fr-FR,de;q=0.8", en, true},
		{"", "fr-FR,ja;q=0.5", ja, true},
		{"", "not a language tag;;", en, true},
		{"ja", "", ja, false},
		{"ja", "en-US,en", ja, false},
		{"en", "ja", en, false},
	}
	for _, tt := range tests {
		_, _, ts := newTest(t, Options{Lang: tt.lang})
		resp, body := get(t, ts.URL+"/bbs", "Accept-Language", tt.accept)
		other := ja
		if tt.want[0] == ja[0] {
			other = en
		}
		for i, w := range tt.want {
			if !strings.Contains(body, w) {
				t.Errorf("lang %q, Accept-Language %q: page lacks %q", tt.lang, tt.accept, w)
			}
			if strings.Contains(body, other[i]) {
				t.Errorf("lang %q, Accept-Language %q: page has %q of the other language", tt.lang, tt.accept, other[i])
			}
		}
		if got := resp.Header.Get("Vary") == "Accept-Language"; got != tt.vary {
			t.Errorf("lang %q: Vary %q; want Accept-Language: %v", tt.lang, resp.Header.Get("Vary"), tt.vary)
		}
	}
}

// TestPageLanguagePostedAndError checks the labels that hold a figure or
// appear only after a post, and the error page, in Japanese.
func TestPageLanguagePostedAndError(t *testing.T) {
	_, _, ts := newTest(t, Options{Lang: "ja"})
	_, body := post(t, ts.URL+"/bbs", url.Values{"cmd": {"AllView"}, "name": {"太郎"}, "message": {"こんにちは"}})
	if !strings.Contains(body, "投稿 #101 を保存しました。") {
		t.Errorf("page after a post lacks 投稿 #101 を保存しました。:\n%s", body)
	}
	resp, body := get(t, ts.URL+"/bbs?cmd=Nope")
	if resp.StatusCode != 400 || !strings.Contains(body, "掲示板に戻る") || !strings.Contains(body, "<title>400 Bad Request: 掲示板チューニング・ラボ</title>") {
		t.Errorf("error page: %d\n%s\nwant 400 with Japanese labels", resp.StatusCode, body)
	}
}

// BenchmarkPageTemplates is what choosing the page's language adds to a
// request: the Vary header to one without Accept-Language (a load tool's),
// a look-up of the value matched before to a browser's; "first" is the
// match itself, made once per value.
func BenchmarkPageTemplates(b *testing.B) {
	s := New(Options{Store: fake.New(1)})
	for _, accept := range []string{"", "ja-JP,ja;q=0.9,en-US;q=0.8,en;q=0.7"} {
		b.Run("accept="+accept, func(b *testing.B) {
			r := httptest.NewRequest("GET", "/bbs", nil)
			if accept != "" {
				r.Header.Set("Accept-Language", accept)
			}
			w := httptest.NewRecorder()
			b.ReportAllocs()
			for b.Loop() {
				s.pageTemplates(w, r)
			}
		})
	}
	b.Run("first", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			language.MatchStrings(pageLanguages, "ja-JP,ja;q=0.9,en-US;q=0.8,en;q=0.7")
		}
	})
}
