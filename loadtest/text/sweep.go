package text

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"bbslab/loadtest"
)

// A Column is one server figure of the sweep table, printed with Format
// (default "%.3f"); Value reports false when the run lacks it.
type Column struct {
	Header, Format string
	Value          func(*loadtest.Result) (v float64, ok bool)
}

// WriteSweepTable writes one line per run, with server columns when runs have server stats.
func WriteSweepTable(w io.Writer, runs []*loadtest.Result, server []Column) error {
	if !slices.ContainsFunc(runs, func(r *loadtest.Result) bool { return len(r.Server) > 0 }) {
		server = nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "clients\tthroughput/s\tideal/s\tmean ms\tp50 ms\tp95 ms\tp99 ms\tp99.9 ms\terrors\tgen cpu %\t"
	for _, c := range server {
		head += c.Header + "\t"
	}
	fmt.Fprintln(tw, head+"note\t")
	for _, r := range runs {
		ideal := "-"
		if s := r.Settings; s.Think > 0 && s.Model != loadtest.ModelOpen {
			ideal = fmt.Sprintf("%.1f", float64(r.Total.Clients)/s.Think.Seconds())
		}
		note := ""
		if r.Cost.Bottleneck {
			note = "client may be the bottleneck"
		}
		if r.Interrupted {
			note = strings.TrimSpace(note + " interrupted")
		}
		fmt.Fprintf(tw, "%d\t%.1f\t%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%d\t%s\t", r.Total.Clients, r.Total.Throughput, ideal,
			r.Total.MeanMs, r.Total.P50Ms, r.Total.P95Ms, r.Total.P99Ms, r.Total.P999Ms, r.Total.Errors, r.Cost.CPUText("%.1f"))
		for _, c := range server {
			if v, ok := c.Value(r); ok {
				fmt.Fprintf(tw, cmp.Or(c.Format, "%.3f")+"\t", v)
			} else {
				fmt.Fprint(tw, "-\t")
			}
		}
		fmt.Fprintf(tw, "%s\t\n", note)
	}
	return tw.Flush()
}

// USLText fits the Universal Scalability Law to throughputs x at clients
// and sets the measured peak beside it; "" when it cannot be fitted.
func USLText(clients []int, x []float64) string {
	u, err := loadtest.FitUSL(clients, x)
	if err != nil {
		return ""
	}
	i := slices.Index(x, slices.Max(x))
	return fmt.Sprintf("%s; measured peak %.0f/s at %d clients", u, x[i], clients[i])
}
