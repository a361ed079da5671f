package bbs

import (
	"net/http"
	"time"

	"bbslab/entity"
	"bbslab/knob"
)

// DistanceStats is the JSON of /admin/distance: each statement's wait in
// force (db_latency ± db_latency_jitter), which a calibration may have set
// while the board runs.
type DistanceStats struct {
	DBLatency              string  `json:"db_latency"`
	DBLatencySeconds       float64 `json:"db_latency_seconds"`
	DBLatencyJitter        string  `json:"db_latency_jitter"`
	DBLatencyJitterSeconds float64 `json:"db_latency_jitter_seconds"`
}

func distanceStats(n entity.Network) DistanceStats {
	var l, j time.Duration
	if n != nil {
		l, j = n.Latency()
	}
	return DistanceStats{DBLatency: l.String(), DBLatencySeconds: l.Seconds(), DBLatencyJitter: j.String(), DBLatencyJitterSeconds: j.Seconds()}
}

// network returns the store's Network, nil when it has none to set.
func (s *Server) network() entity.Network {
	if d, ok := s.opt.Store.(entity.Distant); ok {
		return d.Network()
	}
	return nil
}

// handleDistance answers GET with the wait in force and sets it on POST.
func (s *Server) handleDistance(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		writeJSON(w, http.StatusOK, distanceStats(s.network()))
	case http.MethodPost:
		s.setDistance(w, r)
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		writeJSON(w, http.StatusMethodNotAllowed, jsonError{Status: 405, Error: "/admin/distance: GET reads the wait, POST sets it"})
	}
}

// setDistance sets the statements' wait from ?db_latency= (and
// ?db_latency_jitter=, kept when absent) for the statements that start from
// now on: a calibration turns it until the board lands where the article's
// figures put it (loadtest calibrate).
func (s *Server) setDistance(w http.ResponseWriter, r *http.Request) {
	n := s.network()
	if n == nil {
		writeJSON(w, http.StatusConflict, jsonError{Status: 409, Error: "db_latency: this store has no database at a distance to set"})
		return
	}
	lat, jit := n.Latency()
	q := r.URL.Query()
	if err := r.ParseForm(); err == nil {
		q = r.Form
	}
	for _, k := range []struct {
		key string
		v   *time.Duration
	}{{"db_latency", &lat}, {"db_latency_jitter", &jit}} {
		v := q.Get(k.key)
		if v == "" {
			continue
		}
		d, err := knob.Board.Get(k.key).ParseLive(v)
		if err != nil {
			writeJSON(w, http.StatusBadRequest, jsonError{Status: 400, Error: err.Error()})
			return
		}
		*k.v = time.Duration(d)
	}
	if q.Get("db_latency") == "" && q.Get("db_latency_jitter") == "" {
		writeJSON(w, http.StatusBadRequest, jsonError{Status: 400, Error: "db_latency: missing: give ?db_latency=DURATION (and optionally db_latency_jitter)"})
		return
	}
	n.SetLatency(lat, jit)
	s.log.Info("database distance set", "db_latency", lat.String(), "db_latency_jitter", jit.String())
	writeJSON(w, http.StatusOK, distanceStats(n))
}
