package yardstick

import (
	"embed"
	"html"
	"html/template"
	"io"
	"strconv"
	"strings"
)

// templates/bbs.html is a copy of the board's page template (bbs/templates
// cannot be embedded from here, and the board's renderer is tied to its
// server): TestBodiesMatchBoard compares the two pages byte for byte.
//
//go:embed templates/bbs.html
var templateFS embed.FS

var pageTemplate = template.Must(template.ParseFS(templateFS, "templates/bbs.html")).Lookup("bbs.html")

// page is what the template shows; Posted is always nil (the yardstick
// only reads) but the template names it.
type page struct {
	Command string
	Posted  *Post
	Posts   []Post
	Cost    *cost
}

// Commands lists the command names for the form's buttons.
func (page) Commands() []string { return Commands }

// PostList renders the posts as the page's list items, written by hand as
// the board writes them (html/template's reflection and escaping chain over
// 30 posts would cost more than the rest of the page): names and messages
// go through html.EscapeString; numbers and times are formatted.
func (p page) PostList() template.HTML {
	var b strings.Builder
	n := 0
	for _, post := range p.Posts {
		n += 200 + len(post.Name) + len(post.Message)
	}
	b.Grow(n)
	var num [20]byte
	var ts [40]byte
	for _, post := range p.Posts {
		no := strconv.AppendInt(num[:0], post.No, 10)
		b.WriteString("\n<li id=\"post-")
		b.Write(no)
		b.WriteString("\"><span class=\"no\">")
		b.Write(no)
		b.WriteString("</span> <span class=\"name\">")
		b.WriteString(html.EscapeString(post.Name))
		b.WriteString("</span> <time datetime=\"")
		t := post.CreatedAt.UTC()
		b.Write(t.AppendFormat(ts[:0], "2006-01-02T15:04:05Z07:00"))
		b.WriteString("\">")
		b.Write(t.AppendFormat(ts[:0], "2006-01-02 15:04:05"))
		b.WriteString("</time>\n<div class=\"message\">")
		b.WriteString(html.EscapeString(post.Message))
		b.WriteString("</div></li>")
	}
	return template.HTML(b.String())
}

// writePage writes the board's HTML page for cmd's posts.
func writePage(w io.Writer, cmd string, posts []Post, c cost) error {
	return pageTemplate.Execute(w, page{Command: cmd, Posts: posts, Cost: &c})
}
