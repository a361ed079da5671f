package fleetwatch

import (
	"strconv"

	"bbslab/loadtest/watch"
)

// Combine adds up decoded JSON documents path by path (objects by key, arrays
// by index), the mean for a path in means, true as 1, else the first's; a
// path some documents lack adds up those that have it.
func Combine(docs []any, means map[string]bool) any {
	return combine(docs, "", means)
}

func combine(docs []any, path string, means map[string]bool) any {
	var first any
	for _, d := range docs {
		if d != nil {
			first = d
			break
		}
	}
	switch first.(type) {
	case map[string]any:
		byKey := map[string][]any{} // every key of every document
		for _, d := range docs {
			if m, ok := d.(map[string]any); ok {
				for k, v := range m {
					byKey[k] = append(byKey[k], v)
				}
			}
		}
		out := make(map[string]any, len(byKey))
		for k, parts := range byKey {
			out[k] = combine(parts, join(path, k), means)
		}
		return out
	case []any:
		out := []any{}
		for i := 0; ; i++ {
			var parts []any // the documents' i-th elements: none past the longest
			for _, d := range docs {
				if a, ok := d.([]any); ok && i < len(a) {
					parts = append(parts, a[i])
				}
			}
			if parts == nil {
				return out
			}
			out = append(out, combine(parts, join(path, strconv.Itoa(i)), means))
		}
	case float64, bool:
		sum, n := 0.0, 0
		for _, d := range docs {
			switch v := d.(type) {
			case float64:
				sum += v
				n++
			case bool:
				if v {
					sum++
				}
				n++
			}
		}
		if means[path] && n > 0 {
			return sum / float64(n)
		}
		return sum
	}
	return first
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// meanPaths are the stats' "%" paths: a share every replica sees alike, which
// a sum would count once per replica (a share "of a core" adds up).
func meanPaths(t watch.Target) map[string]bool {
	out := map[string]bool{}
	for _, s := range t.Stats {
		if s.Path != "" && s.Unit == "%" {
			out[s.Path] = true
		}
	}
	return out
}

// total is the sum of the numbers at paths in doc.
func total(doc map[string]any, paths []string) float64 {
	sum := 0.0
	for _, p := range paths {
		if v, ok := watch.LookupNumber(doc, p); ok {
			sum += v
		}
	}
	return sum
}

func copyEnvironment(doc map[string]any, src any, keys []string) {
	m, ok := src.(map[string]any)
	if !ok {
		return
	}
	for _, k := range keys {
		if v, ok := m[k]; ok {
			doc[k] = v
		}
	}
}
