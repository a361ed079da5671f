package config

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"bbslab/behave"
	"bbslab/truth"
)

// Behaviour is the board's behaviour on demand and its truth recording,
// for load-tool authors who need a target whose behaviour they know
// (package behave, docs/truth.md). It is embedded in Config, so its keys
// are top-level keys of the TOML file. The zero value (the default)
// changes nothing.
type Behaviour struct {
	StallEvery  Duration `toml:"stall_every"`  // a stall starts every stall_every; 0 = none
	StallFor    Duration `toml:"stall_for"`    // and lasts stall_for
	Delay       string   `toml:"delay"`        // added service time: 5ms, uniform:1ms-9ms, exp:5ms, 10ms:50,100ms:10
	ErrorStatus int      `toml:"error_status"` // status answered instead ...
	ErrorShare  float64  `toml:"error_share"`  // ... to this share of /bbs requests (0..1)
	Size        int64    `toml:"size"`         // body bytes of every /bbs answer; 0 = as it is
	TruthLog    bool     `toml:"truth_log"`    // truth windows keep a per-request log
	TruthDir    string   `toml:"truth_dir"`    // the one directory admin requests may write into; "" none
	TruthFile   string   `toml:"truth_file"`   // a file name in truth_dir every truth window's stop writes
}

// Settings returns the behaviour knobs as behave reads them, or the
// problems, each naming its key.
func (b Behaviour) Settings() (behave.Settings, error) {
	d, err := behave.ParseDelay(b.Delay)
	if err != nil {
		return behave.Settings{}, fmt.Errorf("delay = %v", err)
	}
	s := behave.Settings{
		StallEvery: time.Duration(b.StallEvery), StallFor: time.Duration(b.StallFor), Delay: d,
		ErrorStatus: b.ErrorStatus, ErrorShare: b.ErrorShare, Size: b.Size,
	}
	return s, s.Validate()
}

// validate returns the behaviour knobs' problems. truth_file is a plain
// name in truth_dir, checked as a stop's ?file= is (truth.CheckName); that
// it is not one of the database's files is checked at start, when
// truth_dir is opened.
func (b Behaviour) validate() []error {
	var errs []error
	if _, err := b.Settings(); err != nil {
		errs = append(errs, err)
	}
	if b.TruthFile != "" {
		if err := truth.CheckName(b.TruthFile); err != nil {
			errs = append(errs, fmt.Errorf("truth_file = %q: %v", b.TruthFile, strings.TrimPrefix(err.Error(), "file "+strconv.Quote(b.TruthFile)+": ")))
		} else if b.TruthDir == "" {
			errs = append(errs, fmt.Errorf("truth_file = %q: needs truth_dir, the directory it is written into", b.TruthFile))
		}
	}
	return errs
}

// bindBehaviour registers the behaviour knobs' flags.
func bindBehaviour(fs *flag.FlagSet, b *Behaviour) {
	fs.Var(&b.StallEvery, "stall-every", "a stall (no request started, no response written) starts every this long (0: none)")
	fs.Var(&b.StallFor, "stall-for", "how long each stall lasts (below -stall-every, at most 1m)")
	fs.StringVar(&b.Delay, "delay", b.Delay, "service time added to each /bbs request: 5ms, uniform:1ms-9ms, exp:5ms (mean) or a mix such as 10ms:50,100ms:10")
	fs.IntVar(&b.ErrorStatus, "error-status", b.ErrorStatus, "status answered instead to -error-share of /bbs requests (200..599)")
	fs.Float64Var(&b.ErrorShare, "error-share", b.ErrorShare, "share of /bbs requests answered with -error-status (0..1)")
	fs.Int64Var(&b.Size, "size", b.Size, "body bytes of every /bbs answer, the page cut or padded with spaces (0: as it is)")
	fs.BoolVar(&b.TruthLog, "truth-log", b.TruthLog, "truth windows keep a per-request log (GET /admin/truth/log)")
	fs.StringVar(&b.TruthDir, "truth-dir", b.TruthDir, "the one `directory` admin requests may write into (a truth window's stop, ?file=NAME); empty: none")
	fs.StringVar(&b.TruthFile, "truth-file", b.TruthFile, "file `name` in -truth-dir every truth window's stop writes its report to, replacing it (atomically)")
}
