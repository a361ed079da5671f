package watch

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
)

// A Bucket names the share of samples whose stack holds Frame.
type Bucket struct {
	Name  string `toml:"name"`
	Frame string `toml:"frame"`
}

func fetchProfile(ctx context.Context, url, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("profile %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("profile %s: %s: %s", url, resp.Status, strings.TrimSpace(string(b)))
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return fmt.Errorf("profile %s: %w", url, err)
	}
	return f.Close()
}

// summarizeProfile reads a pprof file's top functions and bucket shares.
func summarizeProfile(kind, path string, top int, buckets []Bucket, focus string) (*ProfileSummary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("parse profile %s: %w", path, err)
	}
	vi := len(p.SampleType) - 1
	sum := &ProfileSummary{Kind: kind, File: path}
	flat := map[string]int64{}
	bucketed := map[string]int64{}
	var focused int64
	for _, s := range p.Sample {
		v := s.Value[vi]
		sum.Total += v
		frames := sampleFrames(s)
		if len(frames) > 0 {
			flat[frames[0]] += v
		}
		if len(buckets) == 0 {
			continue
		}
		if focus != "" && !slices.ContainsFunc(frames, func(f string) bool { return strings.Contains(f, focus) }) {
			continue
		}
		focused += v
		name := "elsewhere"
		for _, fr := range frames { // leaf first
			in := func(b Bucket) bool { return strings.Contains(fr, b.Frame) }
			if i := slices.IndexFunc(buckets, in); i >= 0 {
				name = buckets[i].Name
				break
			}
		}
		bucketed[name] += v
	}
	if sum.Total > 0 {
		sum.Top = topShares(flat, sum.Total, top)
		if len(buckets) > 0 {
			sum.Focused = float64(focused) / float64(sum.Total)
		}
	}
	if focused > 0 {
		for _, b := range slices.Concat(buckets, []Bucket{{Name: "elsewhere"}}) {
			sum.Buckets = append(sum.Buckets, FuncShare{Name: b.Name, Share: float64(bucketed[b.Name]) / float64(focused)})
		}
	}
	return sum, nil
}

// sampleFrames lists a sample's function names, leaf first.
func sampleFrames(s *profile.Sample) []string {
	var out []string
	for _, loc := range s.Location {
		for _, ln := range loc.Line {
			if ln.Function != nil {
				out = append(out, ln.Function.Name)
			}
		}
	}
	return out
}

func topShares(m map[string]int64, total int64, n int) []FuncShare {
	out := make([]FuncShare, 0, len(m))
	for k, v := range m {
		out = append(out, FuncShare{Name: k, Share: float64(v) / float64(total)})
	}
	slices.SortFunc(out, func(a, b FuncShare) int {
		return cmp.Or(cmp.Compare(b.Share, a.Share), strings.Compare(a.Name, b.Name))
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}
