package bbs

import (
	"context"
	"errors"
	"net/http"

	"bbslab/behave"
	"bbslab/commands"
	"bbslab/entity"
)

// errTooLarge is a request body over maxBody.
var errTooLarge = errors.New("request body too large")

// retryAfter is the Retry-After value, in seconds, of a 503.
const retryAfter = "1"

// classify maps an error to the status and the message a user may see. It
// is the one place errors become HTTP: a user never sees a driver message.
func classify(err error) (int, string) {
	var in *commands.InputError
	var param *behave.ParamError
	switch {
	case errors.As(err, &in):
		return http.StatusBadRequest, in.Error()
	case errors.As(err, &param):
		return http.StatusBadRequest, param.Error()
	case errors.Is(err, errTooLarge):
		return http.StatusRequestEntityTooLarge, "the request body is over 64 KB"
	case errors.Is(err, errQueueFull):
		return http.StatusServiceUnavailable, "server busy: all workers are busy and the queue is full; retry shortly"
	case errors.Is(err, errQueueTimeout):
		return http.StatusServiceUnavailable, "server busy: no worker became free in time; retry shortly"
	case errors.Is(err, entity.ErrUnavailable):
		return http.StatusServiceUnavailable, "the database is unavailable; retry shortly"
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable, "the request took too long and was stopped; retry shortly"
	case errors.Is(err, context.Canceled):
		return statusClientClosed, "the client closed the request"
	default:
		return http.StatusInternalServerError, "internal error"
	}
}

// statusClientClosed is logged when the client left before the answer
// (nginx's 499); nobody reads the response.
const statusClientClosed = 499

// fail classifies err and renders it for the user.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, cmd string, err error) {
	code, msg := classify(err)
	switch {
	case code == statusClientClosed:
		s.stats.clientGone.Add(1)
		return
	case code >= 500 && !errors.Is(err, errQueueFull) && !errors.Is(err, errQueueTimeout):
		// Rejections by the worker limit are counted, not logged: under
		// overload a line each would flood the log.
		s.log.Error("request failed", "cmd", cmd, "status", code, "err", err)
	}
	if code == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", retryAfter)
	}
	s.stats.status(code)
	s.renderError(w, r, code, msg)
}
