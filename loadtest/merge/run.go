package merge

import (
	"errors"
	"fmt"
	"io"
	"time"

	"bbslab/internal/cli"
	"bbslab/loadtest"
	"bbslab/loadtest/text"
)

// Run is "loadtest merge": it merges the files, warns on stderr of a
// skew, prints the windows and the summary, and writes the merged result
// to out unless it is empty.
func Run(files []string, out string, allowDisjoint bool, stdout, stderr io.Writer) error {
	var rs []*loadtest.Result
	for _, p := range files {
		r, err := loadtest.ReadResult(p)
		if err != nil {
			return cli.Usagef("%v", err)
		}
		rs = append(rs, r)
	}
	now := time.Now() // the one reading of the clock: messages omit today's date
	m, err := Results(rs, Options{AllowDisjoint: allowDisjoint, Now: now})
	if errors.Is(err, ErrDisjoint) {
		return cli.Usagef("%v (the files in the order given); start the generators with one -start-at, or give -allow-disjoint to merge them anyway", err)
	}
	if err != nil {
		return err
	}
	if m.Overlap != nil && m.Overlap.Warning != "" {
		fmt.Fprintf(stderr, "warning: %s\n", m.Overlap.Warning)
	}
	if err := WriteOverlap(stdout, m.Overlap, files, now); err != nil {
		return err
	}
	if err := text.WriteSummary(stdout, m); err != nil {
		return err
	}
	if out != "" {
		return m.WriteJSON(out)
	}
	return nil
}
