package bbs

import (
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/text/language"
)

// The board's page speaks English or Japanese. Its words are in labels, by
// message ID, English first; each [[id]] in templates/ is replaced by the
// words of one language before the templates are parsed, so that each
// language has its own parsed templates and a page costs the same in
// either. A message may hold template actions ({{.No}}): it is a piece of
// the template, trusted as the template is. The posts are the users' and
// stay as written; the command names are the article's.
//
// The Japanese follows the article's words: 実行キュー for the queue of
// the worker limit, コネクション for a pooled connection, 取得 for reading
// posts and acquiring a connection.
var labels = map[string][2]string{
	"title":      {"BBS tuning lab", "掲示板チューニング・ラボ"},
	"name":       {"Name", "名前"},
	"message":    {"Message", "メッセージ"},
	"post.with":  {"Post and view with:", "投稿して表示:"},
	"view.only":  {"View only:", "表示のみ:"},
	"posted":     {"Stored post #{{.No}}.", "投稿 #{{.No}} を保存しました。"},
	"meta":       {"{{len .Posts}} newest posts, read by {{.Command}}.", "最新の投稿 {{len .Posts}} 件（{{.Command}} で取得）。"},
	"cost.title": {"the same figures as this response's X-BBS-Queries, X-BBS-Acquires and Server-Timing headers", "このレスポンスの X-BBS-Queries、X-BBS-Acquires、Server-Timing ヘッダと同じ値"},
	"cost":       {"This page cost {{.Line}}", "このページのコスト: {{.LineJa}}"},
	"back":       {"Back to the board", "掲示板に戻る"},
}

// Languages of the page, in the order of labels' words.
const (
	english = iota
	japanese
)

var labelRef = regexp.MustCompile(`\[\[([a-z.]+)\]\]`)

// parseTemplates parses templates/*.html with each [[id]] replaced by
// labels[id] in language lang; an unknown id is an error.
func parseTemplates(lang int) (*template.Template, error) {
	t := template.New("").Funcs(template.FuncMap{
		"time": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") },
	})
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		b, err := templateFS.ReadFile(name)
		if err != nil {
			return nil, err
		}
		var missing []string
		text := labelRef.ReplaceAllStringFunc(string(b), func(ref string) string {
			id := labelRef.FindStringSubmatch(ref)[1]
			words, ok := labels[id]
			if !ok {
				missing = append(missing, id)
			}
			return words[lang]
		})
		if len(missing) > 0 {
			return nil, fmt.Errorf("%s: no label %s", name, strings.Join(missing, ", "))
		}
		if _, err := t.New(path.Base(name)).Parse(text); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// byLanguage are the templates in each language, English first.
var byLanguage = [2]*template.Template{
	template.Must(parseTemplates(english)),
	template.Must(parseTemplates(japanese)),
}

// templates are the English templates, the default.
var templates = byLanguage[english]

// pageLanguages are the page's languages for matching Accept-Language,
// English first: the default when a browser asks for neither.
var pageLanguages = language.NewMatcher([]language.Tag{language.English, language.Japanese})

var varyLanguage = []string{"Accept-Language"} // shared and never changed: setting it allocates nothing

// pageTemplates returns the templates in the board's language
// (Options.Lang "en" or "ja"), or else in the one the request's
// Accept-Language prefers of English and Japanese, English when it names
// neither; the answer then varies with Accept-Language, and says so.
func (s *Server) pageTemplates(w http.ResponseWriter, r *http.Request) *template.Template {
	switch s.opt.Lang {
	case "en":
		return byLanguage[english]
	case "ja":
		return byLanguage[japanese]
	}
	w.Header()["Vary"] = varyLanguage
	accept := r.Header.Get("Accept-Language")
	if accept == "" {
		return byLanguage[english]
	}
	if i, ok := matched.Load(accept); ok {
		return byLanguage[i.(int)]
	}
	_, i := language.MatchStrings(pageLanguages, accept)
	if matchedN.Add(1) <= maxMatched {
		matched.Store(accept, i)
	}
	return byLanguage[i]
}

// matched keeps the language matched to each Accept-Language value seen,
// up to maxMatched values: a browser sends the same value with every
// request, as does a load tool replaying a browser's headers, and matching
// costs far more than looking the value up (BenchmarkPageTemplates).
var (
	matched  sync.Map // Accept-Language value -> index in byLanguage
	matchedN atomic.Int32
)

const maxMatched = 256

// LineJa is Line in Japanese, e.g. "クエリ 30 回（コネクション取得 30 回）、
// 0.540 ms: 実行キュー 0.000、取得待ち 0.060、DB 0.450、ネットワーク 0.000".
func (c cost) LineJa() string {
	return "クエリ " + strconv.Itoa(c.Queries) + " 回（コネクション取得 " + strconv.Itoa(c.Acquires) + " 回）、" +
		ms(c.Total) + " ms: 実行キュー " + ms(c.QueueWait) + "、取得待ち " + ms(c.AcquireWait) +
		"、DB " + ms(c.SQLTime) + "、ネットワーク " + ms(c.NetworkWait)
}
