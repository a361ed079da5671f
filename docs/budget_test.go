package docs

import (
	"bufio"
	"bytes"
	"fmt"
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

// A budget is one row of layout.md's "Size budgets": a folder's non-test
// lines (its subfolders included), or one non-test function's or file's.
type budget struct {
	what  string // the row's first cell
	dir   string // the folder, for a folder's row
	kind  string // "folder", "function" or "file"
	limit int
	// held is the ceiling of a folder whose budget is not met yet (0:
	// none): the count may not rise above it.
	held int
}

// budgetRow is a row of the table: its first cell, its limit in lines
// and, when the budget is not met yet, the ceiling it is held at.
var budgetRow = regexp.MustCompile("^\\| (.+?) \\| ([0-9,]+) lines \\| (?:([0-9,]+) lines )?\\|$")

// budgets reads the table under "## Size budgets" in layout.md.
func budgets(t *testing.T) []budget {
	t.Helper()
	f, err := os.Open("layout.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []budget
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			in = line == "## Size budgets"
		}
		m := budgetRow.FindStringSubmatch(line)
		if !in || m == nil {
			continue
		}
		n, err := strconv.Atoi(strings.ReplaceAll(m[2], ",", ""))
		if err != nil {
			t.Fatalf("layout.md budget %q: %v", line, err)
		}
		b := budget{what: m[1], limit: n}
		if m[3] != "" {
			if b.held, err = strconv.Atoi(strings.ReplaceAll(m[3], ",", "")); err != nil {
				t.Fatalf("layout.md budget %q: %v", line, err)
			}
		}
		switch {
		case strings.Contains(m[1], "function"):
			b.kind = "function"
		case strings.Contains(m[1], "file"):
			b.kind = "file"
		default:
			dir := regexp.MustCompile("^`([a-z/]+)`").FindStringSubmatch(m[1])
			if dir == nil {
				t.Fatalf("layout.md budget %q names no folder in backquotes", line)
			}
			b.kind, b.dir = "folder", dir[1]
		}
		out = append(out, b)
	}
	return out
}

// goFiles lists the non-test .go files under root, subfolders included
// (testdata's too, as find counts them), hidden folders left out.
func goFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// lines counts a file's lines as wc -l does.
func lines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte("\n"))
}

// longest returns the non-test functions of the files over limit lines,
// as "file:line: name, N lines".
func longest(t *testing.T, files []string, limit int) []string {
	t.Helper()
	var out []string
	fset := token.NewFileSet()
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var name string
			switch fn := n.(type) {
			case *ast.FuncDecl:
				name = fn.Name.Name
			case *ast.FuncLit:
				name = "a function literal"
			default:
				return true
			}
			from, to := fset.Position(n.Pos()), fset.Position(n.End())
			if l := to.Line - from.Line + 1; l > limit {
				out = append(out, fmt.Sprintf("%s:%d: %s, %d lines", strings.TrimPrefix(path, "../"), from.Line, name, l))
			}
			return true
		})
	}
	return out
}

// TestBudgets holds the code to layout.md's size budgets, printing each
// count beside its budget.
func TestBudgets(t *testing.T) {
	bs := budgets(t)
	if len(bs) < 3 {
		t.Fatalf("layout.md has %d size budgets; want its table", len(bs))
	}
	all := goFiles(t, "..")
	for _, b := range bs {
		switch b.kind {
		case "folder":
			n := 0
			for _, f := range goFiles(t, filepath.Join("..", b.dir)) {
				n += lines(t, f)
			}
			t.Logf("%-50s %6d of %6d lines", b.what, n, b.limit)
			if b.held > 0 {
				t.Logf("%-50s %6d over the budget, held at %d", "", n-b.limit, b.held)
			}
			if msg := b.check(n); msg != "" {
				t.Error(msg)
			}
		case "file":
			for _, f := range all {
				if n := lines(t, f); n > b.limit {
					t.Errorf("%s: %d lines; a file's budget is %d", strings.TrimPrefix(f, "../"), n, b.limit)
				}
			}
		case "function":
			for _, f := range longest(t, all, b.limit) {
				t.Errorf("%s; a function's budget is %d", f, b.limit)
			}
		}
	}
}

// check says what is wrong with a folder of n non-test lines, "" when
// nothing is: over its budget, or over the ceiling it is held at, or
// within its budget and still held at a ceiling.
func (b budget) check(n int) string {
	switch {
	case b.held == 0 && n > b.limit:
		return fmt.Sprintf("%s: %d non-test lines; the budget is %d", b.what, n, b.limit)
	case b.held > 0 && n > b.held:
		return fmt.Sprintf("%s: %d non-test lines, above the %d it is held at (its budget, %d, is not met yet)", b.what, n, b.held, b.limit)
	case b.held > 0 && n <= b.limit:
		return fmt.Sprintf("%s: %d non-test lines, within the budget of %d: strike out the ceiling of %d in layout.md", b.what, n, b.limit, b.held)
	}
	return ""
}

// TestBudgetCheck holds a folder's budget and ceiling to what they say.
func TestBudgetCheck(t *testing.T) {
	for _, tt := range []struct {
		b    budget
		n    int
		want string
	}{
		{budget{limit: 100}, 100, ""},
		{budget{limit: 100}, 101, "the budget is 100"},
		{budget{limit: 100, held: 120}, 110, ""},
		{budget{limit: 100, held: 120}, 121, "above the 120 it is held at"},
		{budget{limit: 100, held: 120}, 100, "strike out the ceiling"},
	} {
		got := tt.b.check(tt.n)
		if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("limit %d held %d, %d lines: %q; want %q", tt.b.limit, tt.b.held, tt.n, got, tt.want)
		}
	}
}

// TestBudgetsFind holds the counting to what it is for: a made-up tree
// with a long function, a long file and a test file that must not count.
func TestBudgetsFind(t *testing.T) {
	dir := t.TempDir()
	long := "package x\n\nfunc f() {\n" + strings.Repeat("\t_ = 1\n", 101) + "}\n"
	for name, text := range map[string]string{"x.go": long, "x_test.go": long + long, "testdata/y.go": long} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := goFiles(t, dir)
	if len(files) != 2 || !strings.HasSuffix(files[1], "x.go") || !strings.HasSuffix(files[0], "y.go") {
		t.Fatalf("files %v; want testdata/y.go and x.go (no test file)", files)
	}
	if n := lines(t, files[0]); n != 105 {
		t.Errorf("x.go counts %d lines; want 106", n)
	}
	files = files[1:]
	if got := longest(t, files, 100); len(got) != 1 || !strings.Contains(got[0], "f, 103 lines") {
		t.Errorf("long functions %v; want f at 103 lines", got)
	}
	if got := longest(t, files, 103); len(got) != 0 {
		t.Errorf("long functions over 103 lines %v; want none", got)
	}
}
