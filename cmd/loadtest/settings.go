package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest"
	"bbslab/loadtest/session"
)

// runFlags are the flags shared by run and sweep: the run's settings
// (loadtest.Settings), its requests (session.Requests) and what it
// watches of the target (session.Watch), each declared with its fields
// (cli.BindFlags), and those of the command itself.
type runFlags struct {
	s                   loadtest.Settings
	reqs                session.Requests
	watch               session.Watch
	clients, startAt    string
	slo, progress, live string
}

func (f *runFlags) register(fs *flag.FlagSet, clientsHelp string) {
	cli.BindFlags(fs, &f.s)
	cli.BindFlags(fs, &f.reqs)
	cli.BindFlags(fs, &f.watch)
	fs.StringVar(&f.watch.Stats, "server-stats", "", "stats `URL` of the target, read every second of each measured step: the board's stats JSON (http://127.0.0.1:6060/admin/stats) or any Prometheus text endpoint (http://127.0.0.1:6060/metrics)")
	fs.StringVar(&f.clients, "clients", "10", clientsHelp)
	fs.StringVar(&f.startAt, "start-at", "", "wait and start the clients at this `time` (a sweep its first step): +10s, 15:04:05 (today) or RFC 3339; the warm-up and window count from it, so generators given one time measure one window")
	fs.StringVar(&f.slo, "slo", "", "objectives, e.g. 'p99.9<5ms,p99.999<200ms,errors<0.1%' (exit 3 on failure)")
	fs.StringVar(&f.progress, "progress", "auto", "live progress line: auto (on a terminal), on or off")
	fs.StringVar(&f.live, "live", "", "serve the live dashboard at `addr` while the load runs, e.g. 127.0.0.1:0 (a free port; the URL is printed); empty or off: none")
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
	if s.Requests, err = f.reqs.Build(); err != nil {
		return s, nil, err
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
