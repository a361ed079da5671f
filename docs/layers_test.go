package docs

import (
	"bufio"
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "bbslab"

// dependencyRule reads the fenced block under "## The dependency rule" in
// layout.md: "pkg -> a, b" lines, pkg possibly "cmd/*".
func dependencyRule(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open("layout.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rule := map[string][]string{}
	section, fence := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			section = line == "## The dependency rule"
		case section && strings.HasPrefix(line, "```"):
			if fence {
				return rule
			}
			fence = true
		case section && fence:
			pkg, allowed, ok := strings.Cut(line, "->")
			if !ok {
				t.Fatalf("layout.md: dependency rule line %q has no ->", line)
			}
			var list []string
			for _, a := range strings.Split(allowed, ",") {
				if a = strings.TrimSpace(a); a != "" {
					list = append(list, a)
				}
			}
			rule[strings.TrimSpace(pkg)] = list
		}
	}
	t.Fatal("layout.md: no fenced block under ## The dependency rule")
	return nil
}

// TestDependencyRule checks every package of the module against the rule
// in layout.md: each import of the module's own packages must be one the
// rule allows, every package must have a line, and nothing imports cmd/.
func TestDependencyRule(t *testing.T) {
	rule := dependencyRule(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "out") {
			return filepath.SkipDir
		}
		p, err := build.ImportDir(path, 0)
		if err != nil {
			return nil // no Go files here (or only files for other systems)
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		seen++
		for _, e := range check(rule, rel, p.Imports) {
			t.Error(e)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 20 {
		t.Errorf("checked %d packages; the module has more: is the walk broken?", seen)
	}
}

// check returns how pkg's imports break the rule, one message each.
func check(rule map[string][]string, pkg string, imports []string) []string {
	allowed, ok := rule[pkg]
	isCmd := strings.HasPrefix(pkg, "cmd/")
	if !ok && isCmd {
		allowed, ok = rule["cmd/*"], true
	}
	if !ok {
		return []string{"package " + pkg + " has no line in layout.md's dependency rule"}
	}
	var errs []string
	for _, imp := range imports {
		own, found := strings.CutPrefix(imp, module+"/")
		if !found {
			continue
		}
		switch {
		case strings.HasPrefix(own, "cmd/"):
			errs = append(errs, pkg+" imports "+imp+": nothing imports cmd/")
		case isCmd:
			// a command may import any package that is not a command
		case !slices.Contains(allowed, own):
			errs = append(errs, pkg+" imports "+own+"; layout.md allows only "+strings.Join(allowed, ", "))
		}
	}
	return errs
}

// TestCheckFindsViolations runs check on imports that break the rule.
func TestCheckFindsViolations(t *testing.T) {
	rule := map[string][]string{"loadtest": {"machine"}, "cmd/*": nil}
	for _, tc := range []struct {
		pkg     string
		imports []string
		bad     bool
	}{
		{"loadtest", []string{"fmt", module + "/machine"}, false},
		{"loadtest", []string{module + "/loadtest/contract"}, true},
		{"loadtest", []string{module + "/cmd/bbs"}, true},
		{"cmd/loadtest", []string{module + "/loadtest/contract", module + "/loadtest"}, false},
		{"nowhere", nil, true},
	} {
		if errs := check(rule, tc.pkg, tc.imports); (len(errs) > 0) != tc.bad {
			t.Errorf("check(%s, %v) = %q; want a violation: %v", tc.pkg, tc.imports, errs, tc.bad)
		}
	}
}
