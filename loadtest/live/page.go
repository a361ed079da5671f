package live

import (
	"cmp"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
)

// static holds the page, its script and style, and uPlot 1.6.32's built
// files and licence, taken from the npm package uplot@1.6.32 (npm pack,
// dist/uPlot.iife.min.js and dist/uPlot.min.css; see static/README.md).
//
//go:embed static
var static embed.FS

// pageTemplate is the dashboard, live or as a report.
var pageTemplate = template.Must(template.ParseFS(static, "static/dashboard.html"))

// assets are the embedded files the page inlines. Inlining them makes the
// live page and the report one file each, so a browser showing either
// fetches nothing but /events.
var assets = func() (a struct{ uplotJS, uplotCSS, js, css string }) {
	read := func(name string) string {
		b, err := static.ReadFile("static/" + name)
		if err != nil {
			panic(fmt.Sprintf("live: embedded %s: %v", name, err))
		}
		return string(b)
	}
	a.uplotJS, a.uplotCSS = read("uPlot.iife.min.js"), read("uPlot.min.css")
	a.js, a.css = read("dashboard.js"), read("dashboard.css")
	return a
}()

// pageData is what dashboard.html shows.
type pageData struct {
	Title    string
	UplotJS  template.JS
	UplotCSS template.CSS
	JS       template.JS
	CSS      template.CSS
	Report   bool
	Frames   template.JS // a JSON array; json.Marshal escapes <, > and &
	// Lang is the page's language ("en" or "ja"), "" to let the browser's
	// choose; Japanese is the catalogue the script reads (lang.go).
	Lang     string
	Japanese template.JS
	// Appendix and AppendixCSS are the report's sections below the
	// panels and their style (Appendix).
	Appendix    template.HTML
	AppendixCSS template.CSS
}

// writePage writes the page; with report set it carries framesJSON and
// reads no stream, and cfg's appendix.
func writePage(w io.Writer, title string, report bool, framesJSON []byte, cfg reportConfig) error {
	title = cmp.Or(title, "Load dashboard")
	if report && !json.Valid(framesJSON) {
		return fmt.Errorf("live: frames for the page are not valid JSON")
	}
	err := pageTemplate.ExecuteTemplate(w, "dashboard.html", pageData{
		Title:    title,
		UplotJS:  template.JS(assets.uplotJS),
		UplotCSS: template.CSS(assets.uplotCSS),
		JS:       template.JS(assets.js),
		CSS:      template.CSS(assets.css),
		Report:   report,
		Frames:   template.JS(framesJSON),
		Appendix: cfg.appendix, AppendixCSS: cfg.css,
		Lang: cfg.lang, Japanese: japaneseJSON,
	})
	if err != nil {
		return fmt.Errorf("live: write page %q: %w", title, err)
	}
	return nil
}

// A ReportOption changes what WriteReport writes.
type ReportOption func(*reportConfig)

type reportConfig struct {
	appendix template.HTML
	css      template.CSS
	lang     string
}

// Lang writes the page in lang, "en" or "ja", whatever the browser's
// language; a ?lang= in the page's URL still wins. Without it the page
// speaks the browser's language (Japanese or else English).
func Lang(lang string) ReportOption {
	return func(c *reportConfig) { c.lang = lang }
}

// japaneseJSON is the catalogue for the page's script.
var japaneseJSON = func() template.JS {
	b, err := json.Marshal(japanese)
	if err != nil {
		panic(fmt.Sprintf("live: catalogue: %v", err))
	}
	return template.JS(b)
}()

// Appendix adds sections below the dashboard's panels: html inside a
// <section id="appendix"> element, styled by css, which should scope its
// rules under #appendix so that the dashboard's own style stays as it is.
// The finished experiment's report puts its claims, tables and profiles
// there. Both are trusted: the caller builds them with html/template.
func Appendix(html template.HTML, css template.CSS) ReportOption {
	return func(c *reportConfig) { c.appendix, c.css = html, css }
}

// WriteReport writes the dashboard as one self-contained HTML file with
// frames inlined: it opens offline and draws what the live page drew, so
// the finished experiment's report and the screen the room watched look
// the same. Every frame must pass Frame.Validate.
func WriteReport(w io.Writer, frames []Frame, title string, opts ...ReportOption) error {
	var cfg reportConfig
	for _, o := range opts {
		o(&cfg)
	}
	for i := range frames {
		if err := frames[i].Validate(); err != nil {
			return fmt.Errorf("live: report frame %d: %w", i, err)
		}
	}
	if frames == nil {
		frames = []Frame{}
	}
	data, err := json.Marshal(frames)
	if err != nil {
		return fmt.Errorf("live: encode report frames: %w", err)
	}
	return writePage(w, title, true, data, cfg)
}
