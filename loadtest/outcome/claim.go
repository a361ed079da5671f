package outcome

import (
	"fmt"
	"strings"

	"bbslab/loadtest"
	"bbslab/loadtest/live"
)

// Claim is a claim decided from an experiment's results: the
// live.Claim the dashboard shows (its ID, text and outcome; package live
// knows no other package, so the claim's headline and its outcomes are
// defined there and the experiment adds to them) and how it was decided.
type Claim struct {
	live.Claim
	Source string `json:"source"`
	// Reason says why a claim was not measured.
	Reason string `json:"reason,omitempty"`
	// Quick marks a claim decided from a quick run's single
	// measurements, which have no spread.
	Quick  bool    `json:"quick,omitempty"`
	Checks []Check `json:"checks"`
	// Control is the claim's control decided from the same results; nil
	// when the claim names none.
	Control *Control `json:"control,omitempty"`
	// Explained holds the explanations whose checks held (package claim's Explanation).
	Explained []string `json:"explained,omitempty"`
}

// Check is one check with the figures that decided it.
type Check struct {
	Op      string       `json:"op"`
	Left    Side         `json:"left"`
	Right   Side         `json:"right"`
	Outcome live.Outcome `json:"outcome"`
	// Paired says the outcome was decided repeat by repeat (interleaved
	// runs at the same client count), not from the two ranges.
	Paired bool `json:"paired,omitempty"`
	// Text is the check in words with its figures, e.g. "graph 1 at 10
	// clients throughput 812/s (790-830) <= 1.2 × graph 1 at 5 clients
	// throughput 700/s (690-720) = 840/s (828-864): reproduced".
	Text string `json:"text"`
}

// Side is one side of a check as measured.
type Side struct {
	// What names the figure, e.g. "graph 1 at 10 clients throughput".
	What string `json:"what"`
	// Value is the side after its factor; Raw before it.
	Value  loadtest.Spread `json:"value"`
	Raw    loadtest.Spread `json:"raw"`
	Factor float64         `json:"factor"`
	// Missing says why the side could not be measured.
	Missing string `json:"missing,omitempty"`
	// Format and Unit print the figures, Share a 0..1 share as a
	// percentage; Constant marks a constant side. Set as the side is
	// measured, not kept in the file.
	Format   string `json:"-"`
	Unit     string `json:"-"`
	Share    bool   `json:"-"`
	Constant bool   `json:"-"`
}

// ClaimLine is a claim's outcome in one line.
func (c Claim) ClaimLine() string {
	s := fmt.Sprintf("claim %s: %s%s — %s", c.ID, strings.ToUpper(string(c.Outcome)), c.QuickMark(), c.Text)
	if c.Reason != "" {
		s += ": " + c.Reason
	}
	if c.Control == nil {
		s += " [no control]"
	} else {
		s += fmt.Sprintf(" [control: %s]", c.Control.Outcome)
	}
	return s
}

// Control is a control decided: its outcome and the checks, with
// their figures, that decided it.
type Control struct {
	Why     string       `json:"why"`
	Outcome live.Outcome `json:"outcome"`
	Reason  string       `json:"reason,omitempty"`
	Checks  []Check      `json:"checks"`
}

// ClaimCounts says how many of the claims had each outcome, e.g. "7
// reproduced, 1 does not discriminate"; "" without claims.
func (r *Result) ClaimCounts() string {
	n := map[live.Outcome]int{}
	for _, c := range r.Claims {
		n[c.Outcome]++
	}
	var parts []string
	for _, o := range live.Outcomes {
		if n[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[o], o))
		}
	}
	return strings.Join(parts, ", ")
}

// QuickMark flags a claim decided from a quick run.
func (c Claim) QuickMark() string {
	if c.Quick {
		return " (quick: single measurement, no spread)"
	}
	return ""
}
