package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"sync"

	"bbslab/bbs"
	"bbslab/config"
	"bbslab/entity/postgres"
	"bbslab/machine"
)

// instruments are what serve starts so that the server can be seen
// inside: the log files, the profile rates, the machine sampler and the
// SIGUSR1 goroutine dump. stop ends and closes them all.
type instruments struct {
	accessLog io.Writer // nil when off
	sqlTrace  io.Writer // nil when off
	sampler   *machine.Sampler
	dbPort    int // 0 when there are no database sockets

	files []*os.File
	wg    sync.WaitGroup
	stopc context.CancelFunc
}

// startInstruments opens the logs, sets the block and mutex profile rates,
// starts the machine sampler and the SIGUSR1 handler, which writes a
// goroutine dump to stderr and keeps serving (the JVM's kill -3).
func startInstruments(ctx context.Context, cfg config.Config, stdout, stderr io.Writer) (*instruments, error) {
	in := &instruments{}
	var err error
	if in.accessLog, err = in.open("access_log", cfg.AccessLog, stdout); err != nil {
		in.stop()
		return nil, err
	}
	if in.sqlTrace, err = in.open("sql_trace", cfg.SQLTrace, stderr); err != nil {
		in.stop()
		return nil, err
	}
	runtime.SetBlockProfileRate(cfg.Profile.BlockRate)
	runtime.SetMutexProfileFraction(cfg.Profile.MutexFraction)
	if cfg.DB == "postgres" {
		in.dbPort, _ = postgres.ServerPort(cfg.DSN)
	}

	ctx, in.stopc = context.WithCancel(ctx)
	in.sampler = machine.NewSampler()
	sig := make(chan os.Signal, 1)
	if len(dumpSignals) > 0 { // an empty list would mean every signal
		signal.Notify(sig, dumpSignals...)
	}
	in.wg.Add(2)
	go func() {
		defer in.wg.Done()
		in.sampler.Run(ctx)
	}()
	go func() {
		defer in.wg.Done()
		defer signal.Stop(sig)
		for {
			select {
			case <-ctx.Done():
				return
			case <-sig:
				bbs.WriteGoroutines(stderr)
			}
		}
	}()
	return in, nil
}

// open opens a log named by a config value: a file (appended to), "-" for
// dash, or "" for none.
func (in *instruments) open(key, spec string, dash io.Writer) (io.Writer, error) {
	switch spec {
	case "":
		return nil, nil
	case "-":
		return dash, nil
	}
	f, err := os.OpenFile(spec, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	in.files = append(in.files, f)
	return f, nil
}

// stop ends the sampler and the signal handler, turns the profile rates off
// and closes the log files.
func (in *instruments) stop() error {
	if in.stopc != nil {
		in.stopc()
		in.wg.Wait()
		runtime.SetBlockProfileRate(0)
		runtime.SetMutexProfileFraction(0)
	}
	var errs []error
	for _, f := range in.files {
		if err := f.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close %s: %w", f.Name(), err))
		}
	}
	return errors.Join(errs...)
}
