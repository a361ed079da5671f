package outcome

import (
	"fmt"
	"strings"

	"bbslab/loadtest"
	"bbslab/loadtest/live"
)

// Claim is a claim decided from an experiment's results, with how it was decided.
type Claim struct {
	live.Claim
	Source    string   `json:"source"`
	Reason    string   `json:"reason,omitempty"`
	Quick     bool     `json:"quick,omitempty"`
	Checks    []Check  `json:"checks"`
	Control   *Control `json:"control,omitempty"`
	Explained []string `json:"explained,omitempty"`
}

// Check is one check with the figures that decided it.
type Check struct {
	Op      string       `json:"op"`
	Left    Side         `json:"left"`
	Right   Side         `json:"right"`
	Outcome live.Outcome `json:"outcome"`
	// Paired: decided repeat by repeat, not from the two ranges.
	Paired bool   `json:"paired,omitempty"`
	Text   string `json:"text"`
}

// Side is one side of a check as measured.
type Side struct {
	What    string          `json:"what"`
	Value   loadtest.Spread `json:"value"`
	Raw     loadtest.Spread `json:"raw"`
	Factor  float64         `json:"factor"`
	Missing string          `json:"missing,omitempty"`
	// Format, Unit, Share (0..1, printed as %) and Constant print the side; not kept.
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

// Control is a control decided, with the checks that decided it.
type Control struct {
	Why     string       `json:"why"`
	Outcome live.Outcome `json:"outcome"`
	Reason  string       `json:"reason,omitempty"`
	Checks  []Check      `json:"checks"`
}

// ClaimCounts says how many claims had each outcome, e.g. "7 reproduced".
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
