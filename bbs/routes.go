package bbs

import "net/http"

// Handler returns the public handler: the board and nothing else, counted
// in the metrics and the access log.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/bbs", s.handleBoard())
	mux.Handle("GET /static/", http.FileServerFS(staticFS))
	mux.Handle("/", s.handleRoot())
	return s.observe(mux)
}

// AdminHandler returns the admin handler: health, readiness, reset,
// statistics, profiles, the goroutine dump and the metrics, behind the
// admin token when one is set; cross-site requests that change state are
// refused (admin.go).
func (s *Server) AdminHandler() http.Handler {
	mux := &routeList{ServeMux: http.NewServeMux()}
	s.adminRoutes(mux)
	// The index page lists what was registered above (admin.go).
	mux.ServeMux.HandleFunc("GET /{$}", s.handleAdminIndex(mux.patterns))
	return guardAdmin(s.opt.AdminToken, mux)
}

// adminRoutes registers every admin endpoint but the index page.
func (s *Server) adminRoutes(mux *routeList) {
	mux.HandleFunc("GET /healthz", handleHealthz)
	mux.HandleFunc("GET /readyz", s.handleReadyz)
	mux.HandleFunc("POST /admin/reset", s.handleReset)
	mux.HandleFunc("GET /admin/stats", s.handleStats)
	mux.HandleFunc("/admin/distance", s.handleDistance)
	mux.HandleFunc("/admin/behaviour", s.handleBehaviour)
	mux.HandleFunc("/admin/knobs", s.handleKnobs)
	mux.HandleFunc("POST /admin/truth/start", s.handleTruthStart)
	mux.HandleFunc("POST /admin/truth/stop", s.handleTruthStop)
	mux.HandleFunc("GET /admin/truth", s.handleTruth)
	mux.HandleFunc("GET /admin/truth/log", s.handleTruthLog)
	s.debugRoutes(mux)
}

// A routeList is a ServeMux that remembers the patterns registered on it,
// in order, for the admin index page.
type routeList struct {
	*http.ServeMux
	patterns []string
}

// Handle registers h for pattern and remembers the pattern.
func (m *routeList) Handle(pattern string, h http.Handler) {
	m.patterns = append(m.patterns, pattern)
	m.ServeMux.Handle(pattern, h)
}

// HandleFunc registers f for pattern and remembers the pattern.
func (m *routeList) HandleFunc(pattern string, f func(http.ResponseWriter, *http.Request)) {
	m.Handle(pattern, http.HandlerFunc(f))
}
