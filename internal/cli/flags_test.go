package cli

import (
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseFlags(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		files bool
		n     int
		pos   []string
		code  int // ExitCode of the error
		want  string
	}{
		{[]string{"-n", "3"}, false, 3, nil, 0, ""},
		{[]string{"a.json", "-n", "4", "b.json"}, true, 4, []string{"a.json", "b.json"}, 0, ""},
		{[]string{"a.json", "--", "-n"}, true, 0, []string{"a.json", "-n"}, 0, ""},
		{[]string{"extra", "-n", "1"}, false, 1, nil, ExitUsage, `t: unexpected argument "extra"`},
		{[]string{"-bogus"}, false, 0, nil, ExitUsage, ""},
		{[]string{"-h"}, false, 0, nil, 0, ""},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		n := fs.Int("n", 0, "")
		err := ParseFlags(fs, tc.args, tc.files)
		if code := ExitCode(err); code != tc.code || (tc.want != "" && (err == nil || err.Error() != tc.want)) {
			t.Errorf("ParseFlags(%q, %v) = %v (exit %d); want exit %d, %q", tc.args, tc.files, err, code, tc.code, tc.want)
			continue
		}
		if err != nil {
			continue
		}
		if *n != tc.n || !slices.Equal(fs.Args(), tc.pos) {
			t.Errorf("ParseFlags(%q, %v): -n %d, args %q; want %d, %q", tc.args, tc.files, *n, fs.Args(), tc.n, tc.pos)
		}
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := ParseFlags(fs, []string{"-h"}, false); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("ParseFlags(-h) = %v; want flag.ErrHelp", err)
	}
}

func TestParseCounts(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
	}{
		{"5", []int{5}},
		{"5, 10,15", []int{5, 10, 15}},
		{"5,x", nil},
		{"5,0", nil},
		{"", nil},
	} {
		got, err := ParseCounts(tc.in)
		if !slices.Equal(got, tc.want) || (tc.want == nil) != (err != nil) {
			t.Errorf("ParseCounts(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if err != nil && (ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "-clients")) {
			t.Errorf("ParseCounts(%q) error %q: want a usage error naming -clients", tc.in, err)
		}
	}
}

func TestParseCPUs(t *testing.T) {
	for _, tc := range []struct {
		in, err string
		want    []int
	}{
		{"0", "", []int{0}},
		{" 1, 3,1023,", "", []int{1, 3, 1023}},
		{"0,x", "want comma-separated CPU numbers", nil},
		{"-1", "want comma-separated CPU numbers", nil},
		{"1024", "want comma-separated CPU numbers", nil},
		{"", "want at least one CPU", nil},
		{" , ", "want at least one CPU", nil},
	} {
		got, err := ParseCPUs(tc.in)
		if !slices.Equal(got, tc.want) || (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
			t.Errorf("ParseCPUs(%q) = %v, %v; want %v, %q", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestItems(t *testing.T) {
	for in, want := range map[string][]string{
		"cpu":            {"cpu"},
		" cpu, fgprof ,": {"cpu", "fgprof"},
		"":               nil,
		" , ":            nil,
	} {
		if got := Items(in); !slices.Equal(got, want) {
			t.Errorf("Items(%q) = %q; want %q", in, got, want)
		}
	}
}

func TestOnTerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, tc := range []struct {
		value string
		on    bool
		code  int
	}{
		{"on", true, 0},
		{"off", false, 0},
		{"auto", false, 0}, // a file is no terminal
		{"yes", false, ExitUsage},
	} {
		on, err := OnTerminal("-progress", tc.value, f)
		if on != tc.on || ExitCode(err) != tc.code {
			t.Errorf("OnTerminal(%q) = %v, %v; want %v, exit %d", tc.value, on, err, tc.on, tc.code)
		}
		if err != nil && !strings.Contains(err.Error(), `-progress "yes": want auto, on or off`) {
			t.Errorf("OnTerminal(%q) error %q: want it to name the flag and the values", tc.value, err)
		}
	}
}

func TestSubset(t *testing.T) {
	allowed := []string{"a", "b", "c"}
	got, err := Subset("-x", "c, a", allowed)
	if err != nil || !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf(`Subset("c, a") = %q, %v; want [a c] in the order allowed`, got, err)
	}
	for _, in := range []string{"a,d", ""} {
		_, err := Subset("-x", in, allowed)
		if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "is not one of a, b, c") {
			t.Errorf("Subset(%q) = %v; want a usage error listing what is allowed", in, err)
		}
	}
}

func TestList(t *testing.T) {
	var l List
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.Var(&l, "url", "")
	if err := fs.Parse([]string{"-url", "a", "-url", "b"}); err != nil || !slices.Equal(l, List{"a", "b"}) || l.String() != "a,b" {
		t.Errorf("-url a -url b: %q (%q), %v; want both in order", l, l.String(), err)
	}
}

func TestCheckHTTPURL(t *testing.T) {
	for in, ok := range map[string]bool{
		"http://127.0.0.1:6060":   true,
		"http://h/bbs?cmd=x":      true,
		"https://h/bbs":           false,
		"127.0.0.1:6060":          false,
		"http:///path-only":       false,
		"http://h/%zz-bad-escape": false,
	} {
		if err := CheckHTTPURL(in); (err == nil) != ok {
			t.Errorf("CheckHTTPURL(%q) = %v; want ok = %v", in, err, ok)
		}
	}
}

func TestCreate(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "out.csv"))
	if err != nil {
		t.Fatalf("Create in a temp dir: %v", err)
	}
	f.Close()
	if _, err := os.Stat(filepath.Join(dir, "out.csv")); err != nil {
		t.Errorf("Create made no file: %v", err)
	}
	bad := filepath.Join(dir, "missing", "out.csv")
	if _, err := Create(bad); err == nil || !strings.Contains(err.Error(), "create "+bad) {
		t.Errorf("Create(%s) = %v; want an error naming the file", bad, err)
	}
}
