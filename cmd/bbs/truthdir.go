package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"bbslab/config"
	"bbslab/entity/open"
	"bbslab/internal/cli"
	"bbslab/truth"
)

// openTruthDir opens truth_dir, the one directory admin requests may write
// into (nil when it is empty), with the board's own files out of reach:
// the SQLite database with its -wal, -shm and -journal (also where a
// symbolic link named as the database resolves), the access log and the
// SQL trace. truth_file, when set, is checked there now, so that a name
// that could never be written stops the start rather than every stop.
func openTruthDir(cfg config.Config) (*truth.Dir, error) {
	if cfg.TruthDir == "" {
		return nil, nil
	}
	d, err := truth.OpenDir(cfg.TruthDir, boardFiles(cfg))
	if err != nil {
		return nil, cli.Usage(fmt.Errorf("truth_dir = %q: %w", cfg.TruthDir, err))
	}
	if cfg.TruthFile != "" {
		if err := d.Check(cfg.TruthFile, true); err != nil {
			d.Close()
			return nil, cli.Usage(fmt.Errorf("truth_file = %q in truth_dir %q: %w", cfg.TruthFile, cfg.TruthDir, err))
		}
	}
	return d, nil
}

// boardFiles lists the files the board writes that no admin request may
// overwrite.
func boardFiles(cfg config.Config) []string {
	files := open.DataFiles(cfg.DB, cfg.DSN)
	if len(files) > 0 {
		db := files[0]
		if real, err := filepath.EvalSymlinks(db); err == nil && real != filepath.Clean(db) {
			for _, f := range files[:len(files):len(files)] {
				files = append(files, real+strings.TrimPrefix(f, db))
			}
		}
	}
	for _, log := range []string{cfg.AccessLog, cfg.SQLTrace} {
		if log != "" && log != "-" {
			files = append(files, log)
		}
	}
	return files
}
