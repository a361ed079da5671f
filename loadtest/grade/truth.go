package grade

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"bbslab/truth"
)

// TruthPath is where a server under test serves its truth, under its admin address.
const TruthPath = "/admin/truth"

// A Truth is what the server recorded of a window (GET /admin/truth,
// docs/truth.md), with the window's times parsed and its per-request log.
type Truth struct {
	*truth.Report
	Start, End time.Time // End is zero while the window is open
	Logged     []Logged  // the log (TruthLogPath) by arrival, when read
	readAt     time.Time // when an open window was read from the server
}

// DecodeTruth reads a truth document from r (named from in errors), refusing unknown versions.
func DecodeTruth(r io.Reader, from string) (*Truth, error) {
	var rep truth.Report
	if err := json.NewDecoder(r).Decode(&rep); err != nil {
		return nil, fmt.Errorf("truth from %s: %w", from, err)
	}
	if rep.Version != truth.Version {
		return nil, fmt.Errorf("truth from %s: version %d not supported (this grader reads version %d)", from, rep.Version, truth.Version)
	}
	t := &Truth{Report: &rep}
	for _, w := range []struct {
		s   string
		to  *time.Time
		key string
	}{{rep.Window.Start, &t.Start, "start"}, {rep.Window.End, &t.End, "end"}} {
		if w.s == "" {
			continue
		}
		v, err := time.Parse(time.RFC3339Nano, w.s)
		if err != nil {
			return nil, fmt.Errorf("truth from %s: window %s: %w", from, w.key, err)
		}
		*w.to = v
	}
	return t, nil
}

// decodeFile opens path and decodes it; what names the document in errors.
func decodeFile[T any](path, what string, decode func(io.Reader, string) (T, error)) (T, error) {
	f, err := os.Open(path)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("%s: %w", what, err)
	}
	defer f.Close()
	return decode(f, path)
}

// fetch GETs server+path and decodes its body; what names the document in errors.
func fetch[T any](ctx context.Context, server, path, what string, decode func(io.Reader, string) (T, error)) (T, error) {
	var zero T
	u := strings.TrimSuffix(server, "/") + path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", what, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", what, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		e := &statusError{what: what, url: u, status: resp.Status, code: resp.StatusCode}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
		var body struct{ Error string }
		if json.Unmarshal(b, &body) == nil && body.Error != "" {
			e.msg = body.Error
		}
		return zero, e
	}
	return decode(resp.Body, u)
}

// A statusError is a server's answer other than 200 OK, with its message.
type statusError struct {
	what, url, status, msg string
	code                   int
}

func (e *statusError) Error() string {
	s := fmt.Sprintf("%s: GET %s: %s", e.what, e.url, e.status)
	if e.msg != "" {
		s += ": " + e.msg
	}
	return s
}

// served counts the seconds overlapping [from, to) and the requests that
// arrived in them, or in the whole window without per-second counts.
func (t *Truth) served(from, to time.Time) (n int64, secs int) {
	for _, s := range t.Seconds {
		if s.T.Before(to) && s.T.Add(time.Second).After(from) {
			n += s.Requests
			secs++
		}
	}
	if len(t.Seconds) == 0 || from.IsZero() {
		n = t.Requests
	}
	return n, secs
}
