package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest"
	"bbslab/loadtest/session"
	"bbslab/loadtest/watch"
)

// runFlags are the flags shared by run and sweep: the run's settings as
// loadtest.Settings declares them (cli.BindFlags), and those of a form
// of their own.
type runFlags struct {
	s                                loadtest.Settings
	urls, headers                    cli.List
	scenario, method, form, contains string
	clients, body, bodyFile          string
	expect                           int
	slo, progress, live, startAt     string
	stats, profile, kinds, profDir   string
	statsFormat                      string
	metrics                          cli.List
}

func (f *runFlags) register(fs *flag.FlagSet, clientsHelp string) {
	cli.BindFlags(fs, &f.s)
	fs.Var(&f.urls, "url", "target `URL`, http:// or https:// (repeatable; placeholders {{seq}} {{client}} {{rand A B}})")
	fs.StringVar(&f.scenario, "scenario", "", "TOML `file` of weighted, labelled [[request]] tables (instead of -url)")
	fs.StringVar(&f.method, "method", "", "HTTP method for -url (default GET, or POST with -form, -body or -body-file)")
	fs.StringVar(&f.form, "form", "", "form parameters for -url, e.g. 'name=u{{client}}&message=m{{seq}}' (the body of a POST, PUT or PATCH; the query otherwise)")
	fs.Var(&f.headers, "H", "request header for -url, 'Name: value' (repeatable; 'Host: name' sets the Host line, as curl's -H does)")
	fs.StringVar(&f.body, "body", "", "request body for -url, sent as it is (placeholders allowed; Content-Type application/x-www-form-urlencoded unless -H gives one, as curl's -d)")
	fs.StringVar(&f.bodyFile, "body-file", "", "read the request body for -url from `file` (as -body)")
	fs.IntVar(&f.expect, "expect", 0, "expected status for -url (default: any below 400)")
	fs.StringVar(&f.contains, "contains", "", "substring the body of -url responses must contain")
	fs.StringVar(&f.clients, "clients", "10", clientsHelp)
	fs.StringVar(&f.startAt, "start-at", "", "wait and start the clients at this `time` (a sweep its first step): +10s, 15:04:05 (today) or RFC 3339; the warm-up and window count from it, so generators given one time measure one window")
	fs.StringVar(&f.slo, "slo", "", "objectives, e.g. 'p99.9<5ms,p99.999<200ms,errors<0.1%' (exit 3 on failure)")
	fs.StringVar(&f.progress, "progress", "auto", "live progress line: auto (on a terminal), on or off")
	fs.StringVar(&f.stats, "server-stats", "", "stats `URL` of the target, read every second of each measured step: the board's stats JSON (http://127.0.0.1:6060/admin/stats) or any Prometheus text endpoint (http://127.0.0.1:6060/metrics)")
	fs.StringVar(&f.statsFormat, "server-stats-format", "auto", "format of -server-stats: auto (by Content-Type), json or prometheus")
	fs.Var(&f.metrics, "server-metric", "extra reading of a Prometheus -server-stats as `name=selector[:how]`, how one of rate, per_request, gauge, mean, pNN (repeatable), e.g. 'jobs=app_jobs_total{queue=\"mail\"}:rate'")
	fs.StringVar(&f.profile, "profile", "", "base `URL` of the target's profile endpoints (URL/pprof/profile, URL/fgprof), profiled over each measured step")
	fs.StringVar(&f.kinds, "profile-kinds", "cpu", "profiles to take with -profile: cpu, fgprof or cpu,fgprof")
	fs.StringVar(&f.live, "live", "", "serve the live dashboard at `addr` while the load runs, e.g. 127.0.0.1:0 (a free port; the URL is printed); empty or off: none")
	fs.StringVar(&f.profDir, "profile-dir", ".", "`directory` for profile files (PREFIX-<clients>clients-<kind>.pb.gz, PREFIX from -out or \"loadtest\")")
}

// serverSettings gives s its watcher, from -server-stats and -profile: of
// the target's stats and of its profiles; out names the result file whose
// base name prefixes profile files. The target is the board
// (contract.Board) unless -server-stats serves Prometheus text without
// the board's bbs_ metrics at its first read: then any Go service's
// (watch.GoService); it becomes so.Target (the sweep table's columns and
// the charts), with the -server-metric readings added. With a dashboard's
// feed so.Feed, the runs of s feed it: their seconds, and the target's
// stats and request states each second.
func (f *runFlags) serverSettings(ctx context.Context, s *loadtest.Settings, so *session.Options, out string, stderr io.Writer) error {
	o := watch.Options{StatsURL: f.stats, Format: f.statsFormat}
	if so.Feed != nil {
		s.Observers = append(s.Observers, so.Feed.Observer())
		o.OnRead = so.Feed.OnRead
	}
	if err := watch.CheckFormat(f.statsFormat); err != nil {
		return cli.Usagef("-server-stats-format: %v", err)
	}
	var extra []watch.Stat
	for _, m := range f.metrics {
		st, err := watch.ParseMetricStat(m)
		if err != nil {
			return cli.Usagef("-server-metric: %v", err)
		}
		extra = append(extra, st)
	}
	if len(extra) > 0 && f.stats == "" {
		return cli.Usagef("-server-metric needs -server-stats")
	}
	if f.stats != "" {
		t, _, err := watch.Describe(ctx, f.stats, f.statsFormat, so.Target)
		if err != nil {
			fmt.Fprintf(stderr, "loadtest: -server-stats: %v (taking it for the board's stats)\n", err)
		}
		t.Stats = append(slices.Clip(t.Stats), extra...)
		so.Target = t
	}
	if f.profile != "" {
		o.ProfileURL = strings.TrimSuffix(f.profile, "/")
		o.ProfileKinds = cli.Items(f.kinds)
		base := "loadtest"
		if out != "" {
			base = strings.TrimSuffix(filepath.Base(out), filepath.Ext(out))
		}
		if err := os.MkdirAll(f.profDir, 0o755); err != nil {
			return fmt.Errorf("-profile-dir: %w", err)
		}
		o.ProfilePrefix = filepath.Join(f.profDir, base)
	}
	w, err := so.Target.Watcher(o)
	if err != nil {
		return cli.Usagef("%v", err) // a bad flag value
	}
	s.Watcher = w
	return nil
}

// settings builds loadtest.Settings (with clients unset) from the flags.
func (f *runFlags) settings() (loadtest.Settings, []loadtest.Objective, error) {
	s := f.s
	var err error
	if s.Model, err = loadtest.ParseModel(string(s.Model)); err != nil {
		return s, nil, cli.Usagef("-model: %v", err)
	}
	if s.TimerKind, err = loadtest.ParseTimer(string(s.TimerKind)); err != nil {
		return s, nil, cli.Usagef("-timer: %v", err)
	}
	switch {
	case f.scenario != "" && len(f.urls) > 0:
		return s, nil, cli.Usagef("give -url or -scenario, not both")
	case f.scenario != "":
		for _, fl := range []struct{ name, v string }{{"-method", f.method}, {"-form", f.form}, {"-body", f.body}, {"-body-file", f.bodyFile}, {"-contains", f.contains}} {
			if fl.v != "" {
				return s, nil, cli.Usagef("%s goes with -url; a scenario gives it per request", fl.name)
			}
		}
		if len(f.headers) > 0 || f.expect != 0 {
			return s, nil, cli.Usagef("-H and -expect go with -url; a scenario gives them per request")
		}
		if s.Requests, err = loadtest.LoadScenario(f.scenario); err != nil {
			return s, nil, cli.Usagef("%v", err)
		}
	case len(f.urls) > 0:
		r, err := f.request()
		if err != nil {
			return s, nil, err
		}
		for _, u := range f.urls {
			r.URL = u
			s.Requests = append(s.Requests, r)
		}
	default:
		return s, nil, cli.Usagef("give -url or -scenario")
	}
	if s.Duration == 0 && s.MaxRequests == 0 {
		return s, nil, cli.Usagef("give -duration or -requests")
	}
	if f.startAt != "" {
		if s.StartAt, err = loadtest.ParseStartAt(f.startAt, time.Now()); err != nil {
			return s, nil, cli.Usagef("-start-at: %v", err)
		}
	}
	if on, err := cli.OnTerminal("-progress", f.progress, os.Stderr); err != nil {
		return s, nil, err
	} else if on {
		s.Observers = append(s.Observers, &loadtest.Progress{W: os.Stderr})
	}
	var objs []loadtest.Objective
	if f.slo != "" {
		if objs, err = loadtest.ParseSLO(f.slo); err != nil {
			return s, nil, cli.Usagef("-slo: %v", err)
		}
	}
	return s, objs, nil
}

// request is the request -url's flags describe, without its URL: -method,
// -form, -body or -body-file, -H, -expect and -contains.
func (f *runFlags) request() (loadtest.Request, error) {
	r := loadtest.Request{Method: f.method, Expect: f.expect, Contains: f.contains}
	given := 0
	for _, v := range []string{f.form, f.body, f.bodyFile} {
		if v != "" {
			given++
		}
	}
	if given > 1 {
		return r, cli.Usagef("give one of -form, -body and -body-file")
	}
	var err error
	if f.form != "" {
		if r.Form, err = loadtest.ParseForm(f.form); err != nil {
			return r, cli.Usagef("-form: %v", err)
		}
	}
	r.Body = f.body
	if f.bodyFile != "" {
		b, err := os.ReadFile(f.bodyFile)
		if err != nil {
			return r, cli.Usagef("-body-file: %v", err)
		}
		if len(b) == 0 {
			return r, cli.Usagef("-body-file %s: the file is empty", f.bodyFile)
		}
		r.Body = string(b)
	}
	for _, h := range f.headers {
		name, value, err := loadtest.ParseHeader(h)
		if err != nil {
			return r, cli.Usagef("-H: %v", err)
		}
		if r.Headers == nil {
			r.Headers = map[string]string{}
		}
		for k := range r.Headers {
			if strings.EqualFold(k, name) {
				return r, cli.Usagef("-H: header %q given twice", name)
			}
		}
		r.Headers[name] = value
	}
	return r, nil
}

// announceStart tells the user, when s waits for its start, until when.
func announceStart(w io.Writer, s loadtest.Settings) {
	if s.StartAt.IsZero() {
		return
	}
	fmt.Fprintf(w, "waiting until %s (in %.3f s) to start the clients; Ctrl-C gives up\n",
		s.StartAt.Format("2006-01-02 15:04:05.000 MST"), time.Until(s.StartAt).Seconds())
}

// startError gives an error of a run or sweep its exit code: one
// interrupted while it waited for -start-at ran nothing, and exits as
// interrupted.
func startError(err error) error {
	if errors.Is(err, context.Canceled) {
		return cli.WithCode(cli.ExitInterrupted, err)
	}
	return err
}
