package doctor

import (
	"fmt"
	"io"
	"strings"
)

// WriteText writes r for a person: each check's status, name and fact
// (its fix and help under it), then one line per exercise, "ready" or
// what stops it with the fix, then whether the core exercises can run.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "workshop doctor: this machine, read in %.1f s\n", r.Took.Seconds())
	for _, c := range r.Checks {
		fmt.Fprintf(&b, "  %-7s %-15s %s\n", c.Status, c.Name, c.Fact)
		if c.Fix != "" && c.Status != OK {
			fmt.Fprintf(&b, "  %-7s %-15s fix: %s\n", "", "", c.Fix)
		}
		if c.Help != "" && c.Status != OK {
			for _, l := range strings.Split(strings.TrimRight(c.Help, "\n"), "\n") {
				fmt.Fprintf(&b, "  %-7s %-15s %s\n", "", "", l)
			}
		}
	}
	b.WriteString("exercises (docs/workshop.md):\n")
	for _, l := range r.Exercises {
		fmt.Fprintf(&b, "  %d. %-44s %s\n", l.Exercise, l.Title, l.verdict())
	}
	if r.CoreReady() {
		b.WriteString("the core exercises (all but 7 and 10) can run\n")
	} else {
		b.WriteString("the core exercises (all but 7 and 10) cannot all run: apply the fixes above\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// verdict is "ready" (with what will make its figures differ) or "not
// ready:" and each missing check's fact and fix.
func (l Line) verdict() string {
	if l.Ready {
		if len(l.Warnings) == 0 {
			return "ready"
		}
		var names []string
		for _, c := range l.Warnings {
			names = append(names, c.Name)
		}
		return "ready (its figures will differ: " + strings.Join(names, ", ") + ", above)"
	}
	var why []string
	for _, c := range l.Missing {
		s := c.Name + ": " + c.Fact
		if c.Fix != "" {
			s += "; fix: " + c.Fix
		}
		why = append(why, s)
	}
	return "not ready: " + strings.Join(why, " | ")
}
