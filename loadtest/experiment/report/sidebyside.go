package report

import (
	"bbslab/loadtest/experiment/outcome"
	"fmt"
	"slices"
	"strings"
)

// profilesSideBySide renders, for each profile kind taken at the same
// client count in more than one run, the runs' profiles in columns: each
// bucket's share over the repeats, then the first profile's top
// functions, so that where the time went can be read across the runs at
// once (graph 2's wait for a connection beside graph 3's CPU). "" when
// fewer than two runs were profiled.
func profilesSideBySide(res *outcome.Result, top int) string {
	type column struct {
		run string
		g   outcome.ProfileGroup
	}
	byKind := map[string][]column{}
	var kinds []string
	for _, r := range res.Runs {
		for _, g := range outcome.ProfileGroups(r.MeasuredOnly().Profiles) {
			key := fmt.Sprintf("%s profile%s", g.Kind, clientsSuffix(g.Clients))
			if !slices.Contains(kinds, key) {
				kinds = append(kinds, key)
			}
			byKind[key] = append(byKind[key], column{r.Name, g})
		}
	}
	var b strings.Builder
	for _, key := range kinds {
		cols := byKind[key]
		if len(cols) < 2 {
			continue
		}
		fmt.Fprintf(&b, "\n### %s, side by side\n\n| |", key)
		for _, c := range cols {
			fmt.Fprintf(&b, " %s |", c.run)
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(cols)) + "\n")
		var buckets []string
		for _, c := range cols {
			for _, bs := range c.g.Buckets {
				if !slices.Contains(buckets, bs.Name) {
					buckets = append(buckets, bs.Name)
				}
			}
		}
		for _, name := range buckets {
			fmt.Fprintf(&b, "| %s |", name)
			for _, c := range cols {
				cell := "-"
				if i := slices.IndexFunc(c.g.Buckets, func(bs outcome.BucketShare) bool { return bs.Name == name }); i >= 0 {
					cell = outcome.SpreadText(c.g.Buckets[i].Share.Scaled(100), "%.0f", " %")
				}
				fmt.Fprintf(&b, " %s |", cell)
			}
			b.WriteString("\n")
		}
		for i := range top {
			fmt.Fprintf(&b, "| top %d |", i+1)
			for _, c := range cols {
				cell := "-"
				if t := c.g.Profiles[0].Top; i < len(t) {
					cell = fmt.Sprintf("%.1f %% %s", 100*t[i].Share, t[i].Name)
				}
				fmt.Fprintf(&b, " %s |", cell)
			}
			b.WriteString("\n")
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "\n## Profiles side by side\n\nBucket shares are of the samples in focus (profile.focus), the median over the repeats with the range; the top functions are by own samples, of each run's first profile.\n" + b.String()
}

func clientsSuffix(clients int) string {
	if clients == 0 {
		return ""
	}
	return " at " + outcome.ClientsText(clients)
}
