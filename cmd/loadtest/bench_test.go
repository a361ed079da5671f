package main

import (
	"regexp"
	"testing"
)

// TestWatchEstablishedBadURL checks that a target that does not parse, or
// has no port, reads "unknown" instead of dereferencing a nil URL (the
// port was read before the parse error was checked).
func TestWatchEstablishedBadURL(t *testing.T) {
	for _, target := range []string{"http://[::1", "://no-scheme", "http://127.0.0.1/bbs"} {
		stop := watchEstablished(target)
		if got := stop(); got != "unknown" {
			t.Errorf("watchEstablished(%q)() = %q; want \"unknown\"", target, got)
		}
	}
}

// TestHeyPinned checks that bench builds a pinned hey, never @latest.
func TestHeyPinned(t *testing.T) {
	if !regexp.MustCompile(`^github\.com/rakyll/hey@v\d+\.\d+\.\d+$`).MatchString(heyModule) {
		t.Errorf("heyModule = %q; want github.com/rakyll/hey@vX.Y.Z", heyModule)
	}
}
