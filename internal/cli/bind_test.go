package cli

import (
	"bytes"
	"flag"
	"io"
	"strings"
	"testing"
	"time"
)

type mode string

type bindInner struct {
	Seed uint64 `flag:"seed" help:"random seed"`
}

type bindTarget struct {
	Name      string        `flag:"name" arg:"label" help:"the label of the run"`
	Mode      mode          `flag:"mode" default:"delay" help:"the mode"`
	Think     time.Duration `flag:"think" help:"think time"`
	Timeout   time.Duration `flag:"timeout" default:"10s" help:"timeout"`
	Count     int           `flag:"count" help:"a count"`
	Max       int64         `flag:"max" help:"a maximum"`
	Rate      float64       `flag:"rate" help:"a rate"`
	Insecure  bool          `flag:"insecure" help:"skip checks"`
	NoReuse   bool          `flag:"reuse,negate" help:"reuse connections"`
	Names     List          `flag:"n" help:"names (repeatable)"`
	Untagged  int
	Skipped   int `flag:"-"`
	bindInner     // walked
}

func TestBindFlags(t *testing.T) {
	var v bindTarget
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	BindFlags(fs, &v)
	if v.Mode != "delay" || v.Timeout != 10*time.Second || v.NoReuse {
		t.Errorf("after BindFlags: %+v; want the defaults mode delay, timeout 10s, reuse", v)
	}
	args := []string{"-name", "x", "-mode", "open", "-think", "250ms", "-count", "3", "-max", "9000000000",
		"-rate", "2.5", "-insecure", "-reuse=false", "-n", "a", "-n", "b", "-seed", "7"}
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	want := bindTarget{Name: "x", Mode: "open", Think: 250 * time.Millisecond, Timeout: 10 * time.Second, Count: 3, Max: 9e9,
		Rate: 2.5, Insecure: true, NoReuse: true, Names: List{"a", "b"}, bindInner: bindInner{Seed: 7}}
	if v.Name != want.Name || v.Mode != want.Mode || v.Think != want.Think || v.Timeout != want.Timeout || v.Count != want.Count ||
		v.Max != want.Max || v.Rate != want.Rate || v.Insecure != want.Insecure || v.NoReuse != want.NoReuse ||
		strings.Join(v.Names, ",") != "a,b" || v.Seed != 7 {
		t.Errorf("Parse(%q) gave %+v; want %+v", args, v, want)
	}
	for _, name := range []string{"Untagged", "Skipped", "untagged", "-"} {
		if fs.Lookup(name) != nil {
			t.Errorf("flag %q registered; want none for an untagged or flag:\"-\" field", name)
		}
	}

	var help bytes.Buffer
	fs.SetOutput(&help)
	fs.PrintDefaults()
	for _, w := range []string{"-name label\n    \tthe label of the run", "-timeout duration\n    \ttimeout (default 10s)", "-mode string\n    \tthe mode (default \"delay\")", "-reuse\n    \treuse connections (default true)"} {
		if !strings.Contains(help.String(), w) {
			t.Errorf("PrintDefaults =\n%s\nwant %q in it", help.String(), w)
		}
	}
	for _, absent := range []string{"(default 0s)", "(default 0)", "(default false)", "(default \"\")"} {
		if strings.Contains(help.String(), absent) {
			t.Errorf("PrintDefaults =\n%s\nwant no %s: a zero default is not shown", help.String(), absent)
		}
	}
}

func TestBindFlagsRefusesUnknownTypes(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "field C") {
			t.Errorf("BindFlags(chan field) recovered %v; want a panic naming field C", r)
		}
	}()
	var v struct {
		C chan int `flag:"c"`
	}
	BindFlags(flag.NewFlagSet("t", flag.ContinueOnError), &v)
}

type durationFile struct {
	DurationInner
	Wait  time.Duration            `toml:"wait"`
	Keep  time.Duration            `toml:"keep"`
	Steps []durationStep           `toml:"step"`
	Named map[string]time.Duration `toml:"named"`
	Text  Duration                 `toml:"text"`
}

type DurationInner struct {
	Think time.Duration `toml:"think"`
}

type durationStep struct {
	Name string         `toml:"name"`
	For  *time.Duration `toml:"for"`
}

func TestDecodeTOMLDurations(t *testing.T) {
	f := durationFile{Keep: 3 * time.Second}
	data := "wait = \"250ms\"\nthink = \"1s\"\ntext = \"2m\"\nnamed = { a = \"5s\" }\n[[step]]\nname = \"one\"\nfor = \"1h\"\n[[step]]\nname = \"two\"\n"
	if err := DecodeTOML("experiment", "d.toml", []byte(data), &f); err != nil {
		t.Fatalf("DecodeTOML = %v", err)
	}
	if f.Wait != 250*time.Millisecond || f.Think != time.Second || f.Keep != 3*time.Second || f.Text != Duration(2*time.Minute) ||
		f.Named["a"] != 5*time.Second || len(f.Steps) != 2 || f.Steps[0].For == nil || *f.Steps[0].For != time.Hour || f.Steps[1].For != nil {
		t.Errorf("DecodeTOML(%q) = %+v; want wait 250ms, think 1s, keep 3s (kept), text 2m, named a 5s, steps one (1h) and two", data, f)
	}
	for _, tc := range []struct{ text, want string }{
		{"\nthink = \"soon\"\n", `d.toml:2:`},
		{"wait = \"1s\"\nwaits = \"1s\"\n", `unknown key "waits" at line 2`},
	} {
		var f durationFile
		if err := DecodeTOML("experiment", "d.toml", []byte(tc.text), &f); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DecodeTOML(%q) = %v; want an error saying %q", tc.text, err, tc.want)
		}
	}
}

func TestFillDefaults(t *testing.T) {
	v := bindTarget{Timeout: time.Second, bindInner: bindInner{Seed: 1}}
	FillDefaults(&v)
	if v.Mode != "delay" || v.Timeout != time.Second || v.Think != 0 {
		t.Errorf("FillDefaults({timeout 1s}) = %+v; want mode delay (its default), timeout 1s kept, think 0 (no default)", v)
	}
}
