package watch

import "testing"

// TestParseKnobs checks the reading of WORKERS/POOL: two positive counts,
// spaces allowed around each, anything else refused with the form wanted.
func TestParseKnobs(t *testing.T) {
	for in, want := range map[string]Knobs{
		"5/5":      {Workers: 5, Pool: 5},
		" 40 / 8 ": {Workers: 40, Pool: 8},
		"0/5":      {},
		"5/0":      {},
		"5":        {},
		"5/x":      {},
		"":         {},
		"-1/5":     {},
	} {
		got, err := ParseKnobs(in)
		if got != want || (err == nil) != (want != Knobs{}) {
			t.Errorf("ParseKnobs(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if err != nil && err.Error() != "want WORKERS/POOL, two positive counts, e.g. 5/5" {
			t.Errorf("ParseKnobs(%q) error %q; want the form wanted", in, err)
		}
	}
}
