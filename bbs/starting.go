package bbs

import "net/http"

// StartingAdmin returns the admin handler served while start-up opens the
// database, which with db_wait may mean waiting for it to come up: a
// watcher gets an answer instead of a connection left in the listen
// backlog. /healthz answers 200, since the process is up; /readyz and
// every other path answer 503 with Retry-After and status(), what start-up
// is doing. The admin token and the cross-site check guard it as they
// guard AdminHandler.
func StartingAdmin(token string, status func() string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", handleHealthz)
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", retryAfter)
		writeJSON(w, http.StatusServiceUnavailable, readiness{Database: "not open", Reason: status()})
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", retryAfter)
		writeJSON(w, http.StatusServiceUnavailable, jsonError{Status: http.StatusServiceUnavailable, Error: status()})
	})
	return guardAdmin(token, mux)
}

// StartingBoard returns the public handler served while start-up opens the
// database: 503 with Retry-After on every path, with a fixed message: the
// public sees no start-up detail, the admin listener does. /bbs answers
// with X-BBS-Queries and X-BBS-Acquires 0, as every answer of the board
// does: nothing ran.
func StartingBoard() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", retryAfter)
		if r.URL.Path == "/bbs" {
			w.Header().Set("X-BBS-Queries", "0")
			w.Header().Set("X-BBS-Acquires", "0")
		}
		http.Error(w, "the board is starting: its database is not open yet; retry shortly", http.StatusServiceUnavailable)
	})
}
