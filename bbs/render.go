package bbs

import (
	"bytes"
	"embed"
	"html/template"
	"net/http"
	"strconv"
	"sync"

	"bbslab/commands"
	"bbslab/entity"
)

//go:embed templates/*.html
var templateFS embed.FS

// staticFS holds static/, served at /static/.
//
//go:embed static
var staticFS embed.FS

// page is what the board template shows.
type page struct {
	Command string
	N       int
	Posted  *entity.Post
	Posts   []entity.Post
	Cost    *cost // what the request cost, shown under the posts; nil shows nothing
}

// Commands lists the command names for the form's buttons.
func (page) Commands() []string {
	names := make([]string, len(commands.Views))
	for i, v := range commands.Views {
		names[i] = v.Name()
	}
	return names
}

// errorPage is what the error template shows.
type errorPage struct {
	Status  int
	Title   string
	Message string
}

// jsonPosts is the JSON form of a command's answer.
type jsonPosts struct {
	Command string        `json:"command"`
	Posted  *entity.Post  `json:"posted,omitempty"`
	Posts   []entity.Post `json:"posts"`
	Cost    *jsonCost     `json:"cost,omitempty"` // added later: the shape only grows
}

// jsonError is the JSON form of an error.
type jsonError struct {
	Status int    `json:"status"`
	Error  string `json:"error"`
}

var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// renderPosts writes a command's posts as HTML or JSON.
func (s *Server) renderPosts(w http.ResponseWriter, r *http.Request, code int, p page) {
	if wantsJSON(r) {
		writeJSON(w, code, jsonPosts{Command: p.Command, Posted: p.Posted, Posts: p.Posts, Cost: p.Cost.json()})
		return
	}
	s.writeHTML(w, code, s.pageTemplates(w, r), "bbs.html", p)
}

// renderError writes an error page or JSON error with a message safe to show.
func (s *Server) renderError(w http.ResponseWriter, r *http.Request, code int, msg string) {
	if wantsJSON(r) {
		writeJSON(w, code, jsonError{Status: code, Error: msg})
		return
	}
	s.writeHTML(w, code, s.pageTemplates(w, r), "error.html", errorPage{Status: code, Title: http.StatusText(code), Message: msg})
}

// writeHTML executes the template name of ts into a buffer, then writes it
// with its length.
func (s *Server) writeHTML(w http.ResponseWriter, code int, ts *template.Template, name string, data any) {
	buf := buffers.Get().(*bytes.Buffer)
	defer func() { buf.Reset(); buffers.Put(buf) }()
	if err := ts.ExecuteTemplate(buf, name, data); err != nil {
		s.log.Error("render", "template", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	writeHead(w, code, "text/html; charset=utf-8", buf.Len())
	s.writeBody(w, buf.Bytes())
}

// writeJSON writes v as JSON.
func writeJSON(w http.ResponseWriter, code int, v any) {
	buf := buffers.Get().(*bytes.Buffer)
	defer func() { buf.Reset(); buffers.Put(buf) }()
	if err := encodeJSON(buf, v); err != nil { // postjson.go
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	writeHead(w, code, "application/json; charset=utf-8", buf.Len())
	w.Write(buf.Bytes())
}

// writeHead writes the header of a response whose body is n bytes long.
func writeHead(w http.ResponseWriter, code int, contentType string, n int) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(n))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
}
