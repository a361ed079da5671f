package grade

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"bbslab/truth"
)

// Clocks that should agree may differ by the larger of skewFloor and skewShare of a span.
const (
	skewFloor = 100 * time.Millisecond
	skewShare = 0.01
)

// spanSlack is how far a tool's span may reach outside the truth's window.
func spanSlack(span time.Duration) time.Duration {
	return max(skewFloor, time.Duration(skewShare*float64(span)))
}

// A cannotGrade error says why the truth cannot grade a file, and the fix.
type cannotGrade struct {
	file, window, span, why, fix string
}

func (e *cannotGrade) Error() string {
	return fmt.Sprintf("cannot grade %s: %s\n  truth's window: %s\n  tool's span:    %s\n  %s",
		e.file, e.why, e.window, e.span, e.fix)
}

// until is where the window's record ends: its end, when an open window
// was read, or the end of its last second.
func (t *Truth) until() time.Time {
	switch {
	case !t.End.IsZero():
		return t.End
	case !t.readAt.IsZero():
		return t.readAt
	case len(t.Seconds) > 0:
		return t.Seconds[len(t.Seconds)-1].T.Add(time.Second)
	}
	return t.Start
}

func (t *Truth) windowText() string {
	if t.Start.IsZero() {
		return "none opened"
	}
	end := stamp(t.End)
	if t.End.IsZero() {
		end = "open (read at " + stamp(t.until()) + ")"
	}
	return fmt.Sprintf("%s to %s (%.1f s)", stamp(t.Start), end, t.until().Sub(t.Start).Seconds())
}

func spanText(r *Report, win *truth.Span) string {
	switch {
	case !r.Relative:
		return fmt.Sprintf("%s to %s (%.1f s)", stamp(r.Start), stamp(r.End), r.Span.Seconds())
	case win != nil:
		return fmt.Sprintf("%s to %s (-window)", stamp(win.Start), stamp(win.End))
	}
	return fmt.Sprintf("%.1f s long (the %s file has no absolute times)", r.Span.Seconds(), r.Format)
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// covers says why t's window does not cover r's span ("" when it does);
// for a report with offsets only, only its length must fit.
func (t *Truth) covers(r *Report, win *truth.Span) string {
	if t.Start.IsZero() {
		return "the truth has no window: none was opened (POST /admin/truth/start)"
	}
	from, to := r.Start, r.End
	if r.Relative && win != nil {
		from, to = win.Start, win.End
	}
	end := t.until()
	if r.Relative && win == nil {
		if long := end.Sub(t.Start); r.Span > long+spanSlack(r.Span) {
			return fmt.Sprintf("the truth's window (%.1f s) is shorter than the tool's span (%.1f s)", long.Seconds(), r.Span.Seconds())
		}
		return ""
	}
	slack := spanSlack(to.Sub(from))
	if !from.Before(end) || !to.After(t.Start) {
		return "the truth's window does not overlap the tool's span: it is a window of another run"
	}
	var why []string
	if late := t.Start.Sub(from); late > slack {
		why = append(why, fmt.Sprintf("the truth's window opened %.3f s after the tool's span began", late.Seconds()))
	}
	if early := to.Sub(end); early > slack {
		closed := "closed"
		if t.End.IsZero() {
			closed = "was read"
		}
		why = append(why, fmt.Sprintf("it %s %.3f s before the tool's span ended", closed, early.Seconds()))
	}
	return strings.Join(why, "; ")
}

// needsLog says whether grading r needs the truth's per-request log: to
// place offsets to the millisecond when the truth has stalls.
func needsLog(r *Report, t *Truth, win *truth.Span) bool {
	return r.Relative && win == nil && len(r.Requests) > 0 && len(t.Stalls) > 0
}

// logCovers says why the truth's log cannot serve for r ("" when it can).
func (t *Truth) logCovers(r *Report, win *truth.Span) string {
	if t.Logged == nil {
		switch {
		case !needsLog(r, t, win):
			return ""
		case t.Log:
			return "the truth has stalls and the file has offsets only: placing them to the millisecond needs the truth's per-request log; the window keeps one, but it was not given (-truth-log FILE)"
		}
		return "the truth has stalls and the file has offsets only: placing them to the millisecond needs the truth's per-request log, and the window keeps none"
	}
	if t.LogDropped == 0 {
		return ""
	}
	last := time.Time{}
	if n := len(t.Logged); n > 0 {
		last = t.Logged[n-1].Arrival
	}
	to := r.End
	if r.Relative {
		to = t.until() // not placed yet: the whole window
	}
	if to.Sub(last) > spanSlack(r.Span) {
		return fmt.Sprintf("the truth's log stops at %s (its cap of %d lines reached, %d requests not logged), before the tool's span ended",
			stamp(last), t.LogCap, t.LogDropped)
	}
	return ""
}

// checkLog says whether the log read (from from) is the window's own.
func (t *Truth) checkLog(from string) error {
	if t.Logged == nil {
		return nil
	}
	n := int64(len(t.Logged))
	var why string
	switch {
	case t.Start.IsZero():
		return nil // no window: every file is refused with that reason
	case !t.Log:
		why = "the truth's window keeps no per-request log, so this log is another window's"
	case n > 0 && t.Start.Sub(t.Logged[0].Arrival) > skewFloor:
		why = fmt.Sprintf("its first request arrived at %s, before the window opened: it is another window's", stamp(t.Logged[0].Arrival))
	case n > 0 && !t.End.IsZero() && t.Logged[n-1].Arrival.Sub(t.End) > skewFloor:
		why = fmt.Sprintf("its last request arrived at %s, after the window closed: it is another window's", stamp(t.Logged[n-1].Arrival))
	case n < t.LogLines || (!t.End.IsZero() && n != t.LogLines):
		why = fmt.Sprintf("it has %d lines where the truth says %d: another window's log, or a file cut short", n, t.LogLines)
	default:
		return nil
	}
	span := "no lines"
	if n > 0 {
		span = fmt.Sprintf("%d lines, arrivals %s to %s", n, stamp(t.Logged[0].Arrival), stamp(t.Logged[n-1].Arrival))
	}
	return fmt.Errorf("grade: the truth log %s is not its window's: %s\n  truth's window: %s\n  the log:        %s\n  %s",
		from, why, t.windowText(), span, "save the log of the same window as the truth: GET /admin/truth/log before the next POST /admin/truth/start (docs/grading.md)")
}

// openHint says how to open a window on server (ADMIN with -truth FILE),
// with ?log=1 when the per-request log is needed.
func openHint(server string, log bool) string {
	adm := cmp.Or(strings.TrimSuffix(server, "/"), "ADMIN")
	start := "curl -X POST " + adm + "/admin/truth/start"
	if log {
		start = "curl -X POST '" + adm + "/admin/truth/start?log=1'"
	}
	lines := []string{"open a window before the tool runs: " + start, "and close it after the run: curl -X POST " + adm + "/admin/truth/stop"}
	if !log {
		lines = append(lines, "(?log=1 on the start also keeps the per-request log, which places an offsets-only file such as hey's to the millisecond)")
	}
	if server == "" {
		lines = append(lines, "ADMIN is the board's admin address (e.g. http://127.0.0.1:6060); save the truth and its log (GET /admin/truth, /admin/truth/log) for -truth and -truth-log")
	}
	return strings.Join(append(lines, "see `loadtest grade` in docs/grading.md"), "\n  ")
}

// coverage returns a cannotGrade unless t's window, and its log when needed, cover r's span.
func coverage(r *Report, t *Truth, win *truth.Span, server string) error {
	e := &cannotGrade{file: r.Name, window: t.windowText(), span: spanText(r, win)}
	if e.why = t.covers(r, win); e.why != "" {
		e.fix = openHint(server, needsLog(r, t, win))
		return e
	}
	if e.why = t.logCovers(r, win); e.why == "" {
		return nil
	}
	e.fix = openHint(server, true)
	if t.Logged != nil {
		e.fix = fmt.Sprintf("the log keeps at most %d lines a window: grade a run of fewer requests, each in a window of its own\n  ", t.LogCap) + e.fix
	}
	return e
}
