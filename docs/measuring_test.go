package docs

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// secondRule matches what would be a second implementation of a rule of
// loadtest/measure in another package of the load tool: a range overlap
// or a range beyond another, a threshold of disturbance or slowness of
// its own, a function named for a rule, or a median of its own.
var secondRule = regexp.MustCompile(`return \w+\.Min <= \w+\.Max && \w+\.Min <= \w+\.Max|return \w+\.Min > \w+\.Max\b|\b(DisturbedCPU|SlowCPU)\b|` +
	`func (\([^)]*\)\s*)?(disturbed|slow|suspect|agreeing|widen|overlap|judgeSide|judgeControl|sideBySide|middle)\(`)

// TestOneMeasuringCore reads layout.md's table of the measuring concepts:
// every measure.X (or measure.X.Y) it names must be declared in
// loadtest/measure, and no other package under loadtest/ may hold a second
// implementation of its rules (secondRule).
func TestOneMeasuringCore(t *testing.T) {
	names := measuringNames(t)
	if len(names) < 8 {
		t.Fatalf("layout.md names %d identifiers of loadtest/measure; want the table of the measuring concepts", len(names))
	}
	declared := declaredIn(t, "../loadtest/measure")
	for _, n := range names {
		if !declared[n] {
			t.Errorf("layout.md names measure.%s; loadtest/measure declares no such thing", n)
		}
	}
	for _, f := range secondRules(t, "../loadtest") {
		t.Errorf("a second implementation of a measuring rule (loadtest/measure holds the one): %s", f)
	}
}

// TestSecondRuleFinds holds secondRule to what it is for.
func TestSecondRuleFinds(t *testing.T) {
	for line, want := range map[string]bool{
		"func overlap(a, b loadtest.Spread) bool { return a.Min <= b.Max && b.Min <= a.Max }": true,
		"func beyond(a, b loadtest.Spread) bool { return a.Min > b.Max }":                     true,
		"	DisturbedCPU = 15.0": true,
		"func (t *tuner) sideBySide(ctx context.Context) error {":       true,
		"func middle(vs []float64) float64 {":                           true,
		"	return measure.Overlap(a, b)":                                 false,
		"func (x *experimentRunner) quiet(ctx context.Context) error {": false,
		"	case k.Min < 1 || k.Min > k.Max || k.Of == nil:":              false,
	} {
		if got := secondRule.MatchString(line); got != want {
			t.Errorf("secondRule on %q: %v; want %v", line, got, want)
		}
	}
}

// measuringNames returns the measure.X and measure.X.Y names in the table
// under "## Where each measuring concept lives", without the "measure.".
func measuringNames(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("layout.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	name := regexp.MustCompile("`measure\\.([A-Za-z.]+)`")
	var out []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = line == "## Where each measuring concept lives"
		}
		if in && strings.HasPrefix(line, "|") {
			for _, m := range name.FindAllStringSubmatch(line, -1) {
				out = append(out, m[1])
			}
		}
	}
	return out
}

// declaredIn returns the package's top-level names and its methods as
// Type.Method.
func declaredIn(t *testing.T, dir string) map[string]bool {
	t.Helper()
	pkgs, err := parser.ParseDir(token.NewFileSet(), dir, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil {
						out[d.Name.Name] = true
						continue
					}
					typ := d.Recv.List[0].Type
					if s, ok := typ.(*ast.StarExpr); ok {
						typ = s.X
					}
					if id, ok := typ.(*ast.Ident); ok {
						out[id.Name+"."+d.Name.Name] = true
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							out[s.Name.Name] = true
						case *ast.ValueSpec:
							for _, n := range s.Names {
								out[n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	return out
}

// secondRules lists the non-test lines under root, outside
// loadtest/measure, that secondRule matches, as "file:line: text".
func secondRules(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	for _, path := range goFiles(t, root) {
		if strings.Contains(filepath.ToSlash(path), "/measure/") {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if secondRule.MatchString(line) {
				out = append(out, filepath.ToSlash(path)+":"+strconv.Itoa(i+1)+": "+strings.TrimSpace(line))
			}
		}
	}
	return out
}
