package session

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"bbslab/internal/cli"
	"bbslab/loadtest"
	"bbslab/loadtest/watch"
)

// Watch is what a run or a sweep watches of its target (loadtest run and
// sweep's flags); Stats is bound by the command, whose help names the target.
type Watch struct {
	Stats   string
	Format  string   `flag:"server-stats-format" default:"auto" help:"format of -server-stats: auto (by Content-Type), json or prometheus"`
	Metrics cli.List `flag:"server-metric" arg:"name=selector[:how]" help:"extra reading of a Prometheus -server-stats as name=selector[:how], how one of rate, per_request, gauge, mean, pNN (repeatable), e.g. 'jobs=app_jobs_total{queue=\"mail\"}:rate'"`
	Profile string   `flag:"profile" arg:"URL" help:"base URL of the target's profile endpoints (URL/pprof/profile, URL/fgprof), profiled over each measured step"`
	Kinds   string   `flag:"profile-kinds" default:"cpu" help:"profiles to take with -profile: cpu, fgprof or cpu,fgprof"`
	Dir     string   `flag:"profile-dir" default:"." arg:"directory" help:"directory for profile files (PREFIX-<clients>clients-<kind>.pb.gz, PREFIX from -out or \"loadtest\")"`
}

// Apply gives s its watcher as w asks, feeding o.Feed if set, and makes
// o.Target w.Stats' target plus the -server-metric readings. Bad values are
// usage errors naming the flag.
func (w Watch) Apply(ctx context.Context, s *loadtest.Settings, o *Options, stderr io.Writer) error {
	wo := watch.Options{StatsURL: w.Stats, Format: w.Format}
	if o.Feed != nil {
		s.Observers = append(s.Observers, o.Feed.Observer())
		wo.OnRead = o.Feed.OnRead
	}
	if err := watch.CheckFormat(w.Format); err != nil {
		return cli.Usagef("-server-stats-format: %v", err)
	}
	var extra []watch.Stat
	for _, m := range w.Metrics {
		st, err := watch.ParseMetricStat(m)
		if err != nil {
			return cli.Usagef("-server-metric: %v", err)
		}
		extra = append(extra, st)
	}
	if len(extra) > 0 && w.Stats == "" {
		return cli.Usagef("-server-metric needs -server-stats")
	}
	if w.Stats != "" {
		t, _, err := watch.Describe(ctx, w.Stats, w.Format, o.Target)
		if err != nil {
			fmt.Fprintf(stderr, "loadtest: -server-stats: %v (taking it for the target's stats)\n", err)
		}
		t.Stats = append(slices.Clip(t.Stats), extra...)
		o.Target = t
	}
	if w.Profile != "" {
		wo.ProfileURL, wo.ProfileKinds = strings.TrimSuffix(w.Profile, "/"), cli.Items(w.Kinds)
		base := "loadtest"
		if o.Out != "" {
			base = strings.TrimSuffix(filepath.Base(o.Out), filepath.Ext(o.Out))
		}
		if err := os.MkdirAll(w.Dir, 0o755); err != nil {
			return fmt.Errorf("-profile-dir: %w", err)
		}
		wo.ProfilePrefix = filepath.Join(w.Dir, base)
	}
	wr, err := o.Target.Watcher(wo)
	if err != nil {
		return cli.Usagef("%v", err) // a bad flag value
	}
	s.Watcher = wr
	return nil
}
