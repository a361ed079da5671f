package config

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Latency holds the knobs of the latency experiments of the real-time Java
// article on latency outliers ("リアルタイム Java での開発", part 3): Nagle's
// algorithm and small writes, the garbage collector, and a warm-up pass
// before the server reports ready. It is embedded in Config, so its keys are
// top-level keys of the TOML file.
type Latency struct {
	// TCPNoDelay sets TCP_NODELAY on the public listener's connections. Go
	// sets it on every connection (true); false turns Nagle's algorithm on.
	TCPNoDelay  bool `toml:"tcp_nodelay"`
	WriteChunks int  `toml:"write_chunks"` // 0: an HTML page in one write; N: in N pieces, each flushed on its own
	GOGC        int  `toml:"gogc"`         // GC percent set at start: 0 the runtime's own ($GOGC, else 100), -1 off
	// GOMemLimit is the soft memory limit set at start, such as "512MiB";
	// empty leaves the runtime's own (GOMEMLIMIT, else none).
	GOMemLimit Size `toml:"gomemlimit"`
	// Warmup runs each command once before the server reports ready.
	Warmup bool `toml:"warmup"`
}

// defaultLatency leaves every runtime and socket setting as Go has it.
func defaultLatency() Latency {
	return Latency{TCPNoDelay: true}
}

// validate returns one error per bad latency knob of those knob.Board does
// not declare.
func (l Latency) validate() []error {
	var errs []error
	if l.GOMemLimit < 0 {
		errs = append(errs, fmt.Errorf("gomemlimit = %d: must not be negative", l.GOMemLimit))
	}
	return errs
}

// bindLatency registers the latency knobs' flags.
func bindLatency(fs *flag.FlagSet, l *Latency) {
	fs.BoolVar(&l.TCPNoDelay, "tcp-nodelay", l.TCPNoDelay, "set TCP_NODELAY on accepted connections (false: Nagle's algorithm on)")
	fs.Var(&l.GOMemLimit, "gomemlimit", "soft memory `limit` set at start, such as 512MiB (empty: runtime default or $GOMEMLIMIT)")
	fs.BoolVar(&l.Warmup, "warmup", l.Warmup, "run each command once before reporting ready")
}

// Size is a number of bytes written with an optional binary or decimal unit,
// such as "512MiB", "1GB" or "4096", as GOMEMLIMIT accepts them. Zero is
// written as the empty string and means "not set".
type Size int64

// sizeUnits are the suffixes Size accepts, longest first within a letter.
var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10},
	{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1},
}

// Set parses s as a size; it makes Size a flag.Value.
func (z *Size) Set(s string) error {
	s = strings.TrimSpace(s)
	if s == "" {
		*z = 0
		return nil
	}
	num, mult := s, int64(1)
	for _, u := range sizeUnits {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			num, mult = strings.TrimSpace(n), u.mult
			break
		}
	}
	v, err := strconv.ParseInt(num, 10, 64)
	if err != nil || v < 0 || v > math.MaxInt64/mult {
		return fmt.Errorf("%q is not a size such as 512MiB, 2GiB or 1000000B", s)
	}
	*z = Size(v * mult)
	return nil
}

// String formats z with the largest binary unit that divides it exactly;
// zero is the empty string.
func (z Size) String() string {
	if z == 0 {
		return ""
	}
	for _, u := range sizeUnits[:4] {
		if int64(z)%u.mult == 0 {
			return strconv.FormatInt(int64(z)/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(int64(z), 10) + "B"
}

// UnmarshalText decodes a TOML string such as "512MiB".
func (z *Size) UnmarshalText(b []byte) error { return z.Set(string(b)) }

// MarshalText encodes z as a string such as "512MiB".
func (z Size) MarshalText() ([]byte, error) { return []byte(z.String()), nil }
