package diskbench

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
)

// WriteTable writes r as the disk-speed article's TOTALS table (stat, avg, median, min,
// max in nanoseconds), one row per operation, then the grade.
func (r Result) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "diskbench: %d files of %d bytes in %s\n\nTOTALS\n", r.N, r.Bytes, r.Dir)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	rule := "----\t----\t----\t----\t----\t\n"
	fmt.Fprint(tw, rule)
	fmt.Fprint(tw, "stat\tavg\tmedian\tmin\tmax\t\n")
	fmt.Fprint(tw, rule)
	for _, s := range r.Stats {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", s.Op, thousands(s.AvgNS), thousands(s.MedianNS), thousands(s.MinNS), thousands(s.MaxNS))
	}
	fmt.Fprint(tw, rule)
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("diskbench: write table: %w", err)
	}
	_, err := fmt.Fprintf(w, "All times are in nanoseconds.\n%s\n", r.Grade)
	if err != nil {
		return fmt.Errorf("diskbench: write table: %w", err)
	}
	return nil
}

// WriteJSON writes r as indented JSON.
func (r Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("diskbench: write json: %w", err)
	}
	return nil
}

// thousands formats n with commas, as the seed's tables do.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3+1)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}
