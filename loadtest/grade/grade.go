package grade

import (
	"bbslab/truth"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"bbslab/internal/cli"
)

// Options say where the truth is and how to read the tools' files.
type Options struct {
	Server    string `flag:"server" arg:"address" help:"the server's admin address (its truth at /admin/truth)"`
	TruthFile string `flag:"truth" arg:"file" help:"read the truth from file instead of -server"`
	TruthLog  string `flag:"truth-log" arg:"file" help:"with -truth: read the truth's per-request log (GET /admin/truth/log saved) from file"`
	Format    string `flag:"format" arg:"format" help:"the files' format (loadtest, k6, vegeta, hey, jtl, wrk, generic); default: from each file's content"`
	Window    string `flag:"window" arg:"START,END" help:"START,END (RFC 3339): where a file without absolute times lies"`
}

// Run grades each file against the truth and writes the grades to w. Its error
// carries the exit code: cli.ExitUsage for bad input, cli.ExitSLO for a failed check.
func Run(ctx context.Context, o Options, files []string, w io.Writer) error {
	if len(files) == 0 {
		return cli.Usagef("grade: give the tools' result files")
	}
	if (o.Server == "") == (o.TruthFile == "") {
		return cli.Usagef("grade: give one of -server (the server's admin address) or -truth FILE")
	}
	if o.TruthLog != "" && o.TruthFile == "" {
		return cli.Usagef("grade: -truth-log goes with -truth FILE (with -server the log is read from the server)")
	}
	if o.Format != "" {
		if _, err := pick(nil, o.Format); err != nil {
			return cli.Usagef("grade: -format: %v", err)
		}
	}
	win, err := parseWindow(o.Window)
	if err != nil {
		return cli.Usage(err)
	}
	var reports []*Report
	for _, f := range files {
		rs, err := readFile(f, o.Format)
		if err != nil {
			return cli.Usagef("grade: %v", err)
		}
		reports = append(reports, rs...)
	}
	t, err := readTruth(ctx, o)
	if err != nil {
		return err
	}
	writeTruth(w, t)
	var failed []string
	var cannot []error
	for _, r := range reports {
		if err := coverage(r, t, win, o.Server); err != nil {
			fmt.Fprintf(w, "\n== %s (%s)\nnot graded: the truth does not cover its span (the error says why, and how to open a window that does)\n", r.Name, r.Format)
			cannot = append(cannot, err)
			continue
		}
		placed := align(r, t, win)
		g := gradeReport(r, t)
		g.Placed = placed
		writeGrading(w, g)
		if g.Failed() {
			failed = append(failed, r.Name)
		}
	}
	if len(cannot) > 0 {
		return cli.Usage(fmt.Errorf("grade: %w", errors.Join(cannot...)))
	}
	if len(failed) > 0 {
		return cli.WithCode(cli.ExitSLO, fmt.Errorf("grade: a check failed for %s", strings.Join(failed, ", ")))
	}
	return nil
}

// readTruth reads the truth, and its log when kept, from the server or o's
// files; a log not the window's own is a usage error.
func readTruth(ctx context.Context, o Options) (*Truth, error) {
	if o.TruthFile != "" {
		t, err := decodeFile(o.TruthFile, "truth", DecodeTruth)
		if err != nil {
			return nil, cli.Usage(err)
		}
		if o.TruthLog != "" {
			if t.Logged, err = decodeFile(o.TruthLog, "truth log", decodeTruthLog); err != nil {
				return nil, cli.Usage(err)
			}
		}
		return t, cli.Usage(t.checkLog(o.TruthLog))
	}
	t, err := fetch(ctx, o.Server, TruthPath, "truth", DecodeTruth)
	if err != nil {
		return nil, err
	}
	if t.End.IsZero() {
		t.readAt = time.Now()
	}
	if !t.Log {
		return t, nil
	}
	t.Logged, err = fetch(ctx, o.Server, TruthLogPath, "truth log", decodeTruthLog)
	var se *statusError
	if errors.As(err, &se) && se.code == http.StatusConflict {
		return nil, cli.Usagef("grade: the truth says its window keeps a per-request log, but %v: the window was replaced between the two reads; %s",
			err, openHint(o.Server, true))
	}
	if err != nil {
		return nil, err
	}
	return t, cli.Usage(t.checkLog(strings.TrimSuffix(o.Server, "/") + TruthLogPath))
}

// parseWindow reads -window START,END; nil when empty.
func parseWindow(s string) (*truth.Span, error) {
	if s == "" {
		return nil, nil
	}
	a, b, ok := strings.Cut(s, ",")
	start, err1 := time.Parse(time.RFC3339Nano, strings.TrimSpace(a))
	end, err2 := time.Parse(time.RFC3339Nano, strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil {
		return nil, errors.New("grade: -window: want START,END in RFC 3339 (2026-12-02T07:20:00Z,2026-12-02T07:20:10Z)")
	}
	if !end.After(start) {
		return nil, errors.New("grade: -window: END must be after START")
	}
	return &truth.Span{Start: start, End: end}, nil
}
