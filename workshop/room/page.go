package room

import (
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strings"

	"bbslab/loadtest/live"
)

//go:embed page.html
var pageFiles embed.FS

// RefreshSeconds is how often the page reloads itself.
const RefreshSeconds = 5

var page = template.Must(template.New("page.html").Funcs(template.FuncMap{
	"pct": func(p *float64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprintf("%.1f %%", *p)
	},
	// outcome is an outcome's CSS class, e.g. "o-not-reproduced".
	"outcome": func(o live.Outcome) string { return "o-" + strings.ReplaceAll(string(o), " ", "-") },
	"refresh": func() int { return RefreshSeconds },
}).ParseFS(pageFiles, "page.html"))

func (r *Room) handlePage(w http.ResponseWriter, req *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := page.Execute(w, r.View()); err != nil {
		r.opt.Logf("room: page: %v", err)
	}
}

func (r *Room) handleJSON(w http.ResponseWriter, req *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(r.View())
}

// handleChart serves a chart of the page, drawn from the uploads held now.
func (r *Room) handleChart(w http.ResponseWriter, req *http.Request) {
	id := strings.TrimSuffix(req.PathValue("id"), ".svg")
	r.mu.Lock()
	ups := slices.Clone(r.uploads)
	r.mu.Unlock()
	_, gs := curves(ups)
	i := slices.IndexFunc(gs, func(g *group) bool { return g.id == id })
	if i < 0 {
		http.Error(w, "room: no chart "+id, http.StatusNotFound)
		return
	}
	b, err := r.charts.svg(gs[i])
	if err != nil {
		r.opt.Logf("room: chart %s: %v", id, err)
		http.Error(w, "room: the chart could not be drawn", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(b)
}
