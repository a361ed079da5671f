package config

import (
	"flag"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"bbslab/internal/cli"
	"bbslab/knob"
)

// TestKnobBounds gives each knob of knob.Board just outside each of its
// bounds, in a TOML file and as a flag: refused, naming the knob, the
// value, the bounds and the unit. At the bounds it is taken.
func TestKnobBounds(t *testing.T) {
	for _, d := range knob.Board {
		below := d.Min - 1
		if d.Open {
			below = d.Min
		}
		for _, c := range []struct{ ok, bad int64 }{{below + 1, below}, {d.Max, d.Max + 1}} {
			for _, how := range []string{"toml", "flag"} {
				_, err := parse(t, knobArgs(t, how, d, c.bad)...)
				for _, w := range []string{d.Key + " = " + d.Format(c.bad) + ": must be ", d.Format(d.Min), d.Format(d.Max), d.Unit} {
					if err == nil || !strings.Contains(err.Error(), w) {
						t.Errorf("%s %s = %s: %v; want it refused saying %q", how, d.Key, d.Format(c.bad), err, w)
					}
				}
				if _, err := parse(t, knobArgs(t, how, d, c.ok)...); err != nil {
					t.Errorf("%s %s = %s: %v; want it taken", how, d.Key, d.Format(c.ok), err)
				}
			}
		}
	}
}

// knobArgs are the arguments that give d the value v, as a flag or in a
// TOML file; pool_min comes with a pool as large, which bounds it.
func knobArgs(t *testing.T, how string, d knob.Decl, v int64) []string {
	s, args, pool := d.Format(v), []string{"-" + d.Flag(), d.Format(v)}, ""
	if d.Key == "pool_min" {
		args, pool = append(args, "-pool", "10000"), "pool = 10000\n"
	}
	if how == "flag" {
		return args
	}
	if d.Dur {
		s = `"` + s + `"`
	}
	key, table := d.Key, ""
	if i := strings.LastIndex(key, "."); i >= 0 {
		key, table = key[i+1:], "["+key[:i]+"]\n"
	}
	return []string{"-config", writeFile(t, pool+table+key+" = "+s+"\n")}
}

// TestKnobDeclared adds a made-up knob to the table and a field to the
// configuration: it gets its default, its flag (with its bounds in the
// usage), its key in TOML and in /admin/stats's config object, and a value
// out of bounds is refused.
func TestKnobDeclared(t *testing.T) {
	table := append(slices.Clone(knob.Board), knob.Decl{Key: "made_up", Min: 2, Max: 9, Default: 3, Unit: "widgets", Help: "a knob of the test"})
	var c struct {
		Config
		MadeUp int `toml:"made_up"`
	}
	c.Config = Default()
	setDefaults(table, &c)
	if c.MadeUp != 3 || validateKnobs(table, &c) != nil {
		t.Fatalf("defaults: made_up = %d, %v; want 3, valid", c.MadeUp, validateKnobs(table, &c))
	}
	fs := flag.NewFlagSet("bbs", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	bindKnobs(fs, table, &c)
	if f := fs.Lookup("made-up"); f == nil || f.Usage != "a knob of the test: 2..9 widgets" {
		t.Fatalf("flag -made-up: %+v; want its usage with the bounds", f)
	}
	if err := fs.Parse([]string{"-made-up", "12"}); err != nil || c.MadeUp != 12 {
		t.Fatalf("-made-up 12: %v, %d", err, c.MadeUp)
	}
	if err := validateKnobs(table, &c); err == nil || !strings.Contains(err.Error(), "made_up = 12: must be 2..9 widgets") {
		t.Errorf("-made-up 12: %v; want refused naming the bounds", err)
	}
	if m := tomlMap(reflect.ValueOf(c)); m["made_up"] != 12 { // /admin/stats's config object
		t.Errorf("the knobs by TOML key: made_up = %v; want 12", m["made_up"])
	}
	if err := cli.DecodeTOML("config", "x.toml", []byte("made_up = 1\nworkers = 4\n"), &c); err != nil || c.MadeUp != 1 || c.Workers != 4 {
		t.Fatalf("TOML made_up = 1: %v, %d", err, c.MadeUp)
	}
	if err := validateKnobs(table, &c); err == nil || !strings.Contains(err.Error(), "made_up = 1: must be 2..9 widgets") {
		t.Errorf("TOML made_up = 1: %v; want refused naming the bounds", err)
	}
}
