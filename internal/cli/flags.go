package cli

import (
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/term"
)

// ParseFlags parses args into fs, allowing flags after positional
// arguments, and turns flag errors into usage errors (flag has printed the
// problem). With files, the positional arguments are left in fs.Args();
// without, any is a usage error naming it. -h gives flag.ErrHelp.
func ParseFlags(fs *flag.FlagSet, args []string, files bool) error {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return err
			}
			return Usage(errors.New("")) // flag printed the problem
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if len(pos) > 0 && !files {
		return Usagef("%s: unexpected argument %q", fs.Name(), pos[0])
	}
	return fs.Parse(append([]string{"--"}, pos...))
}

// ParseCounts parses a -clients flag: comma-separated positive counts.
func ParseCounts(list string) ([]int, error) {
	var counts []int
	for _, c := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n < 1 {
			return nil, Usagef("-clients %q: want comma-separated positive counts", list)
		}
		counts = append(counts, n)
	}
	return counts, nil
}

// ParseCPUs parses a comma-separated list of CPU numbers (0..1023), at
// least one.
func ParseCPUs(list string) ([]int, error) {
	var cpus []int
	for _, c := range Items(list) {
		n, err := strconv.Atoi(c)
		if err != nil || n < 0 || n > 1023 {
			return nil, errors.New("want comma-separated CPU numbers")
		}
		cpus = append(cpus, n)
	}
	if len(cpus) == 0 {
		return nil, errors.New("want at least one CPU")
	}
	return cpus, nil
}

// Items returns the comma-separated items of list, trimmed, without the
// empty ones.
func Items(list string) []string {
	var out []string
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Subset parses flag name's comma-separated list of values from allowed
// and returns them in the order of allowed; any other value is a usage
// error naming it and what is allowed.
func Subset(name, list string, allowed []string) ([]string, error) {
	want := map[string]bool{}
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if !slices.Contains(allowed, s) {
			return nil, Usagef("%s %q: %q is not one of %s", name, list, s, strings.Join(allowed, ", "))
		}
		want[s] = true
	}
	var out []string
	for _, s := range allowed {
		if want[s] {
			out = append(out, s)
		}
	}
	return out, nil
}

// OnTerminal reads flag name's value auto, on or off: whether to show
// something meant for a person, such as a progress line; auto shows it
// when f is a terminal.
func OnTerminal(name, value string, f *os.File) (bool, error) {
	switch value {
	case "on":
		return true, nil
	case "auto":
		return term.IsTerminal(int(f.Fd())), nil
	case "off":
		return false, nil
	}
	return false, Usagef("%s %q: want auto, on or off", name, value)
}

// A List is a repeatable string flag: each use adds a value.
type List []string

// String returns the values joined with commas.
func (l *List) String() string { return strings.Join(*l, ",") }

// Set adds s.
func (l *List) Set(s string) error { *l = append(*l, s); return nil }

// CheckHTTPURL checks a flag's URL: http:// with a host.
func CheckHTTPURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return err
	case u.Scheme != "http" || u.Host == "":
		return errors.New("want http://HOST[:PORT]/...")
	}
	return nil
}

// Create creates an output file, naming it in the error.
func Create(path string) (*os.File, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return f, nil
}
