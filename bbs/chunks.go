package bbs

import "net/http"

// writeBody writes a page body to w: in one Write when Options.WriteChunks is
// 0, else in WriteChunks pieces of nearly equal size, each flushed to the
// connection on its own. net/http buffers a response and sends it in one
// segment; separately flushed small pieces are what lets Nagle's algorithm
// (tcp_nodelay = false) meet the client's delayed ACK, the stall the lab
// reproduces.
func (s *Server) writeBody(w http.ResponseWriter, b []byte) {
	n := s.opt.WriteChunks
	if n <= 0 {
		w.Write(b)
		return
	}
	rc := http.NewResponseController(w)
	for _, piece := range split(b, n) {
		if _, err := w.Write(piece); err != nil {
			return // the client is gone; nothing to tell it
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
}

// split cuts b into n pieces whose lengths differ by at most one byte, or
// into len(b) one-byte pieces when b is shorter than n. The pieces share b's
// memory.
func split(b []byte, n int) [][]byte {
	if n > len(b) {
		n = len(b)
	}
	out := make([][]byte, 0, n)
	for i := range n {
		lo, hi := len(b)*i/n, len(b)*(i+1)/n
		out = append(out, b[lo:hi])
	}
	return out
}
