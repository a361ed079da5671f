package bench

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

	"bbslab/loadtest"
)

// tls measures the generator's CPU per request over http:// and https://
// (a self-signed second target), with keep-alive and with a new,
// resumed, connection per request. The schemes take turns within each
// round so that the machine's drift hits both alike.
func (b *bench) tls(ctx context.Context, url string, size int, dur time.Duration, conns, rounds int) error {
	surl, stop, err := b.startTarget(size, "-tls")
	if err != nil {
		return err
	}
	defer stop()
	// A few seconds keep the sockets in TIME_WAIT below the ephemeral ports.
	short := min(dur, 3*time.Second)
	fmt.Fprintf(b.stdout, "\n== TLS: generator CPU per request, http (%s) vs https (%s, self-signed, -insecure), %d rounds\n", url, surl, rounds)
	type mode struct {
		name  string
		dur   time.Duration
		conns int
		args  []string
	}
	modes := []mode{
		{"keep-alive", dur, conns, nil},
		{"new connection per request", short, min(conns, 10), []string{"-keepalive=false"}},
	}
	tw := tabwriter.NewWriter(b.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "connections\tscheme\treq/s (median)\tcpu µs/request (median)\t(min-max)\thttps ÷ http (median)\t")
	for _, m := range modes {
		per := map[string][]float64{}
		rates := map[string][]float64{}
		for r := 1; r <= rounds; r++ {
			for _, scheme := range []string{"http", "https"} {
				target, extra := url, []string(nil)
				if scheme == "https" {
					target, extra = surl, []string{"-insecure"}
				}
				args := append([]string{"-url", target, "-clients", strconv.Itoa(m.conns), "-duration", m.dur.String()}, m.args...)
				res, got, err := b.gen.run(ctx, fmt.Sprintf("tls-%s-%d", scheme, r), append(args, extra...)...)
				if err != nil {
					return err
				}
				if res.Total.Errors > 0 {
					return fmt.Errorf("bench tls: %s %s: %d errors: %v", scheme, m.name, res.Total.Errors, res.Total.ErrorSet)
				}
				us := 1e6 * got.cpu / float64(max(got.requests, 1))
				per[scheme] = append(per[scheme], us)
				rates[scheme] = append(rates[scheme], float64(got.requests)/got.wall)
				fmt.Fprintf(b.stdout, "round %d %-27s %-5s %8d requests  %.2f cpu s  %7.1f cpu µs/request\n", r, m.name, scheme, got.requests, got.cpu, us)
			}
		}
		base := loadtest.Median(per["http"])
		for _, scheme := range []string{"http", "https"} {
			med := loadtest.Median(per[scheme])
			fmt.Fprintf(tw, "%s\t%s\t%.0f\t%.1f\t%.1f-%.1f\t%.2f\t\n", m.name, scheme, loadtest.Median(rates[scheme]), med,
				slices.Min(per[scheme]), slices.Max(per[scheme]), med/base)
		}
	}
	return tw.Flush()
}
