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
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", handleHealthz)
	mux.HandleFunc("GET /readyz", s.handleReadyz)
	mux.HandleFunc("POST /admin/reset", s.handleReset)
	mux.HandleFunc("GET /admin/stats", s.handleStats)
	mux.HandleFunc("GET /{$}", s.handleAdminIndex)
	s.debugRoutes(mux)
	return guardAdmin(s.opt.AdminToken, mux)
}
