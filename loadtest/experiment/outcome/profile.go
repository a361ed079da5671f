package outcome

import (
	"bbslab/loadtest"
	"fmt"
	"slices"
)

// UsedIn reports whether a profile was taken in a used measurement:
// its Seq is in used, or it or used says nothing (written before
// re-measures).
func (pr *StepProfile) UsedIn(used map[int]bool) bool {
	return used == nil || pr.Seq == 0 || used[pr.Seq]
}

// ProfileGroup is the profiles of one kind taken at one client count, one
// per repeat, with each bucket's share over them.
type ProfileGroup struct {
	Kind     string
	Clients  int
	Profiles []*StepProfile
	Buckets  []BucketShare
}

// A BucketShare is a profile bucket's share over a group's profiles.
type BucketShare struct {
	Name  string
	Share loadtest.Spread
}

// Where says at which client count and over how many repeats, e.g.
// ", 10 clients, 3 repeats" ("" when the profiles do not say).
func (g ProfileGroup) Where() string {
	if g.Clients == 0 {
		return ""
	}
	s := ", " + ClientsText(g.Clients)
	if n := len(g.Profiles); n > 1 {
		s += fmt.Sprintf(", %d repeats", n)
	}
	return s
}

// ProfileGroups groups profiles by kind and client count, in order.
func ProfileGroups(ps []*StepProfile) []ProfileGroup {
	var out []ProfileGroup
	for _, p := range ps {
		i := slices.IndexFunc(out, func(g ProfileGroup) bool { return g.Kind == p.Kind && g.Clients == p.Clients })
		if i < 0 {
			out = append(out, ProfileGroup{Kind: p.Kind, Clients: p.Clients})
			i = len(out) - 1
		}
		out[i].Profiles = append(out[i].Profiles, p)
	}
	for i := range out {
		g := &out[i]
		for _, b := range g.Profiles[0].Buckets {
			if sp, ok := ShareOver(g.Profiles, b.Name); ok {
				g.Buckets = append(g.Buckets, BucketShare{b.Name, sp})
			}
		}
	}
	return out
}

// ShareOver is a bucket's share over profiles.
func ShareOver(ps []*StepProfile, bucket string) (loadtest.Spread, bool) {
	var vs []float64
	for _, p := range ps {
		for _, b := range p.Buckets {
			if b.Name == bucket {
				vs = append(vs, b.Share)
			}
		}
	}
	if len(vs) == 0 {
		return loadtest.Spread{}, false
	}
	return loadtest.SpreadOf(vs), true
}
