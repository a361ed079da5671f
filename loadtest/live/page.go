package live

import (
	"cmp"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"sync"
)

//go:embed static
var static embed.FS

var pageTemplate = template.Must(template.ParseFS(static, "static/dashboard.html"))

func embedded(name string) string {
	b, err := static.ReadFile("static/" + name)
	if err != nil {
		panic(fmt.Sprintf("live: embedded %s: %v", name, err))
	}
	return string(b)
}

type pageData struct {
	Title       string
	UplotJS     template.JS
	UplotCSS    template.CSS
	JS          template.JS
	CSS         template.CSS
	Report      bool
	Frames      template.JS // a JSON array; json.Marshal escapes <, > and &
	Lang        string      // "en", "ja", or "" for the browser's
	Japanese    template.JS
	Appendix    template.HTML
	AppendixCSS template.CSS
}

// page is the page's data but for its frames and report options.
var page = sync.OnceValue(func() pageData {
	b, err := json.Marshal(japanese)
	if err != nil {
		panic(fmt.Sprintf("live: catalogue: %v", err))
	}
	return pageData{
		Title:   "Load dashboard",
		UplotJS: template.JS(embedded("uPlot.iife.min.js")), UplotCSS: template.CSS(embedded("uPlot.min.css")),
		JS: template.JS(embedded("dashboard.js")), CSS: template.CSS(embedded("dashboard.css")),
		Japanese: template.JS(b),
	}
})

func writePage(w io.Writer, d pageData) error {
	if err := pageTemplate.ExecuteTemplate(w, "dashboard.html", d); err != nil {
		return fmt.Errorf("live: write page %q: %w", d.Title, err)
	}
	return nil
}

// A ReportOption changes what WriteReport writes.
type ReportOption func(*pageData)

// Lang writes the page in lang, "en" or "ja"; a ?lang= in its URL wins.
func Lang(lang string) ReportOption {
	return func(d *pageData) { d.Lang = lang }
}

// Appendix adds trusted sections below the dashboard's panels: html
// inside a <section id="appendix">, styled by css scoped under #appendix.
func Appendix(html template.HTML, css template.CSS) ReportOption {
	return func(d *pageData) { d.Appendix, d.AppendixCSS = html, css }
}

// WriteReport writes the dashboard with frames inlined as one HTML file.
func WriteReport(w io.Writer, frames []Frame, title string, opts ...ReportOption) error {
	d := page()
	for _, o := range opts {
		o(&d)
	}
	for i := range frames {
		if err := frames[i].Validate(); err != nil {
			return fmt.Errorf("live: report frame %d: %w", i, err)
		}
	}
	data, err := json.Marshal(nonNil(frames))
	if err != nil {
		return fmt.Errorf("live: encode report frames: %w", err)
	}
	d.Title, d.Report, d.Frames = cmp.Or(title, d.Title), true, template.JS(data)
	return writePage(w, d)
}
