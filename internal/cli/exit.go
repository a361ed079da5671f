// Package cli is the plumbing the two commands (cmd/bbs, cmd/loadtest)
// share, kept once here rather than copied into each:
//
//	func main() { os.Exit(cli.Exit(os.Stderr, "loadtest", run(ctx, os.Args[1:], os.Stdout, os.Stderr))) }
//	if err := cli.ParseFlags(fs, args, true); err != nil { return err } // a usage error: exit 2
//	err := cli.DecodeTOML("experiment", path, data, &spec)                // unknown keys named with their line
//
// It holds exit codes carried by errors, a TOML duration type, strict TOML
// decoding whose errors name the unknown key and its line, and the flag
// handling of the load tool's subcommands (flags after arguments, usage
// errors, client counts, lists, URLs, output files). It knows nothing of
// the board or the load tool.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// Exit codes of the commands.
const (
	// ExitFailure is any error without a code of its own.
	ExitFailure = 1
	// ExitUsage is a problem with the command line or an input file.
	ExitUsage = 2
	// ExitSLO is a load run whose results were written in full but missed
	// its objectives (loadtest).
	ExitSLO = 3
	// ExitInterrupted is a run stopped by a signal after writing partial
	// results: 128 + SIGINT, as shells report it.
	ExitInterrupted = 130
)

// An ExitError carries the process exit code of an error.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// WithCode returns err carrying exit code code; nil stays nil.
func WithCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &ExitError{Code: code, Err: err}
}

// Usage marks err as a usage error (ExitUsage); nil stays nil.
func Usage(err error) error { return WithCode(ExitUsage, err) }

// Usagef is Usage of fmt.Errorf(format, a...).
func Usagef(format string, a ...any) error { return Usage(fmt.Errorf(format, a...)) }

// Outcome is the error, and so the exit code, of a run whose results were
// written in full: interrupted (ExitInterrupted) wins over failed
// objectives (ExitSLO); nil when neither.
func Outcome(interrupted, sloFailed bool) error {
	switch {
	case interrupted:
		return WithCode(ExitInterrupted, errors.New("interrupted; partial results written"))
	case sloFailed:
		return WithCode(ExitSLO, errors.New("SLO failed"))
	}
	return nil
}

// ExitCode returns the process exit code of err: 0 for nil and for
// flag.ErrHelp (help was asked for and printed), the code of the outermost
// ExitError in its chain, else ExitFailure.
func ExitCode(err error) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	var e *ExitError
	if errors.As(err, &e) {
		return e.Code
	}
	return ExitFailure
}

// Exit prints err to stderr as "prog: message" and returns its exit code
// (ExitCode). Nothing is printed for a nil error, for flag.ErrHelp, or for
// an error with an empty message (a problem the flag package has printed
// already).
func Exit(stderr io.Writer, prog string, err error) int {
	code := ExitCode(err)
	if code != 0 && err.Error() != "" {
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
	}
	return code
}
