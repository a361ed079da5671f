// Package docs holds the project's documentation pages (the README's
// reference and measurement pages). It has no code: its test checks that
// every relative link in README.md and docs/*.md leads somewhere, that every
// #anchor into a Markdown page names one of its headings, and that the
// README stays short.
package docs

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// maxReadmeLines bounds the README: a front page with a guided tour and
// links, the reference living in docs/ (about 200 lines, with some room).
const maxReadmeLines = 220

// TestLinks checks the committed pages: README.md and every docs/*.md.
func TestLinks(t *testing.T) {
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join("..", "README.md"))
	if len(files) < 2 {
		t.Fatalf("found only %v: run the test from the docs directory", files)
	}
	for _, p := range checkLinks(files) {
		t.Error(p)
	}
}

// TestReadmeLength keeps the README a front page.
func TestReadmeLength(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > maxReadmeLines {
		t.Errorf("README.md has %d lines; at most %d: move reference material to docs/", n, maxReadmeLines)
	}
}

// TestCheckLinksFindsBrokenLinks runs the checker on a small tree with one
// good and one bad link of each kind, so that a checker that lets everything
// pass fails here.
func TestCheckLinksFindsBrokenLinks(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("sub/page.md", "# Page\n\n## The `/admin/stats` JSON\n")
	write("sub/data.json", "{}\n")
	index := write("index.md", strings.Join([]string{
		"# Index",
		"## Same page",
		"[ok file](sub/page.md) [ok dir](sub/) [ok anchor](sub/page.md#the-adminstats-json)",
		"[ok here](#same-page) [ok json](sub/data.json#x) [web](https://example.com/nowhere.md)",
		"[missing file](sub/nope.md)",
		"[missing anchor](sub/page.md#no-such-heading)",
		"[missing here](#nowhere)",
		"`[in code](gone.md)`",
		"```",
		"[in a fence](gone.md)",
		"```",
	}, "\n"))
	got := checkLinks([]string{index})
	want := []string{
		index + `: link "sub/nope.md": ` + filepath.Join(dir, "sub", "nope.md") + " does not exist",
		index + `: link "sub/page.md#no-such-heading": ` + filepath.Join(dir, "sub", "page.md") + ` has no heading with anchor "no-such-heading"`,
		index + `: link "#nowhere": ` + index + ` has no heading with anchor "nowhere"`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("checkLinks found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSlug(t *testing.T) {
	for _, tc := range []struct{ heading, want string }{
		{"Results on this machine", "results-on-this-machine"},
		{"/admin/stats JSON", "adminstats-json"},
		{"/metrics", "metrics"},
		{"Busy, unreachable, too slow", "busy-unreachable-too-slow"},
		{"Cold start: `-timeline`", "cold-start--timeline"},
		{"What the commands look like under load (measured)", "what-the-commands-look-like-under-load-measured"},
		{"Where does a change go?", "where-does-a-change-go"},
		{"The `db_latency` knob", "the-db_latency-knob"},
		{"A [linked](x.md) heading", "a-linked-heading"},
		{"実例で学ぶ チューニング", "実例で学ぶ-チューニング"},
		{"Debian or Ubuntu (what CI does)", "debian-or-ubuntu-what-ci-does"},
	} {
		if got := slug(tc.heading); got != tc.want {
			t.Errorf("slug(%q) = %q; want %q", tc.heading, got, tc.want)
		}
	}
}

func TestAnchorsNumberDuplicates(t *testing.T) {
	got := anchors("# Notes\n## Notes\n```\n# not a heading\n```\n## Notes #\n")
	want := map[string]bool{"notes": true, "notes-1": true, "notes-2": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("anchors = %v; want %v", got, want)
	}
}

func TestExtractLinks(t *testing.T) {
	for _, tc := range []struct {
		name, md string
		want     []string
	}{
		{"inline", "see [the knobs](docs/knobs.md) and [x](a.md#b).", []string{"docs/knobs.md", "a.md#b"}},
		{"image and title", `![chart](c.svg "a chart") [t](p.md "title")`, []string{"c.svg", "p.md"}},
		{"angle brackets", "[a](<my file.md>)", []string{"my file.md"}},
		{"code span", "`[not](a.md)` but [yes](b.md)", []string{"b.md"}},
		{"fenced", "```\n[not](a.md)\n```\n~~~\n[not](c.md)\n~~~\n[yes](b.md)", []string{"b.md"}},
		{"indented code", "text\n\n    [not](a.md)\n\n[yes](b.md)", []string{"b.md"}},
		{"autolink and bare", "<https://example.com> https://example.com/x", nil},
		{"two on a line", "[a](1.md), [b](2.md)", []string{"1.md", "2.md"}},
		{"brackets in text", "[`[[run]]`](exp.md#run)", []string{"exp.md#run"}},
	} {
		if got := links(tc.md); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: links(%q) = %q; want %q", tc.name, tc.md, got, tc.want)
		}
	}
}

// checkLinks returns one line per broken relative link in the given
// Markdown files: a target file or directory that does not exist, or an
// #anchor into a Markdown file that names none of its headings. Links with
// a scheme (https:, mailto:) are not followed.
func checkLinks(files []string) []string {
	var problems []string
	anchorsOf := map[string]map[string]bool{}
	pageAnchors := func(p string) (map[string]bool, error) {
		if a, ok := anchorsOf[p]; ok {
			return a, nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		anchorsOf[p] = anchors(string(b))
		return anchorsOf[p], nil
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			problems = append(problems, fmt.Sprintf("read %s: %v", f, err))
			continue
		}
		for _, l := range links(string(b)) {
			if hasScheme.MatchString(l) {
				continue
			}
			target, frag, _ := strings.Cut(l, "#")
			target, err := url.PathUnescape(target)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: link %q: bad escape: %v", f, l, err))
				continue
			}
			p := f
			if target != "" {
				p = filepath.Join(filepath.Dir(f), filepath.FromSlash(target))
			}
			if _, err := os.Stat(p); err != nil {
				problems = append(problems, fmt.Sprintf("%s: link %q: %s does not exist", f, l, p))
				continue
			}
			if frag == "" || !strings.HasSuffix(p, ".md") {
				continue
			}
			a, err := pageAnchors(p)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: link %q: %v", f, l, err))
				continue
			}
			if !a[frag] {
				problems = append(problems, fmt.Sprintf("%s: link %q: %s has no heading with anchor %q", f, l, p, frag))
			}
		}
	}
	return problems
}

// hasScheme matches a link that leaves the repository: https:, mailto: and
// the like (RFC 3986 scheme syntax).
var hasScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

var (
	// inlineLink matches [text](dest) and ![alt](dest), with an optional
	// "title"; dest is group 1 in <angle brackets> or group 2 bare.
	inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\((?:<([^>]*)>|([^)\s]+))(?:\s+"[^"]*")?\)`)
	// codeSpan matches `code` and ``code`` (a run of backticks, its text and
	// the same run), whose brackets are not links.
	codeSpan = regexp.MustCompile("(`+)[^`]*?(`+)")
	// atxHeading matches a "# Heading" line (one to six #, up to three
	// spaces of indent), its optional closing #s left off.
	atxHeading = regexp.MustCompile(`^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
)

// links returns the destinations of the inline links and images in md, in
// order, leaving out code: fenced blocks, indented blocks and code spans.
func links(md string) []string {
	var out []string
	for _, line := range proseLines(md) {
		line = codeSpan.ReplaceAllString(line, "")
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			if m[1] != "" {
				out = append(out, m[1])
			} else {
				out = append(out, m[2])
			}
		}
	}
	return out
}

// anchors returns the anchors GitHub gives md's headings: each heading's
// slug, with -1, -2, ... added to the second and later uses of a slug.
func anchors(md string) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	for _, line := range proseLines(md) {
		m := atxHeading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		s := slug(m[1])
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// slug is GitHub's anchor for a heading: the heading's text (link targets
// and code marks dropped), lower-cased, with every character that is not a
// letter, a digit, a mark, "-" or "_" removed and each space made a "-".
func slug(heading string) string {
	text := inlineLink.ReplaceAllStringFunc(heading, func(l string) string {
		return l[strings.Index(l, "[")+1 : strings.Index(l, "](")]
	})
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// proseLines returns md's lines outside fenced code blocks (``` or ~~~) and
// indented code blocks (four spaces or a tab after a blank line).
func proseLines(md string) []string {
	var out []string
	fence := ""
	prevBlank, inIndented := true, false
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		blank := strings.TrimSpace(line) == ""
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
		case !blank && (strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t")) && (prevBlank || inIndented):
			inIndented = true
		default:
			if !blank {
				inIndented = false
			}
			out = append(out, line)
		}
		prevBlank = blank
	}
	return out
}
