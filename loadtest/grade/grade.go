package grade

import (
	"bbslab/truth"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"bbslab/internal/cli"
)

// Options say where the truth is and how to read the tools' files.
type Options struct {
	// Server is the server's admin address (its truth at TruthPath);
	// TruthFile a saved truth instead, TruthLog its saved per-request log
	// (read from Server when the truth says it has one).
	Server, TruthFile, TruthLog string
	// Format names the files' format; empty: recognised from each file's
	// content.
	Format string
	// Window is "START,END" (RFC 3339): where a file without absolute
	// times lies in the truth's time.
	Window string
}

// Run grades each file against the truth and writes the grades to w. Its
// error carries the exit code: cli.ExitUsage for a bad option or an
// unreadable file, cli.ExitSLO when a check failed.
func Run(ctx context.Context, o Options, files []string, w io.Writer) error {
	if len(files) == 0 {
		return cli.Usagef("grade: give the tools' result files")
	}
	if (o.Server == "") == (o.TruthFile == "") {
		return cli.Usagef("grade: give one of -server (the server's admin address) or -truth FILE")
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
	var t *Truth
	if o.TruthFile != "" {
		t, err = readTruthFile(o.TruthFile)
		if err != nil {
			return cli.Usage(err)
		}
		if o.TruthLog != "" {
			if t.Logged, err = readTruthLog(o.TruthLog); err != nil {
				return cli.Usage(err)
			}
		}
	} else if t, err = fetch(ctx, o.Server, TruthPath, "truth", DecodeTruth); err != nil {
		return err
	} else if t.Log {
		if t.Logged, err = fetch(ctx, o.Server, TruthLogPath, "truth log", decodeTruthLog); err != nil {
			return err
		}
	}
	writeTruth(w, t)
	var failed []string
	for _, r := range reports {
		placed := align(r, t, win)
		g := gradeReport(r, t)
		g.Placed = placed
		writeGrading(w, g)
		if g.Failed() {
			failed = append(failed, r.Name)
		}
	}
	if len(failed) > 0 {
		return cli.WithCode(cli.ExitSLO, fmt.Errorf("grade: a check failed for %s", strings.Join(failed, ", ")))
	}
	return nil
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
