package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExpandFileFuncs(t *testing.T) {
	env := map[string]string{"BBS_PG_DSN": `postgres://bob:p"w\d@db:5432/test`, "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct{ in, want string }{
		{`dsn = "{{env "BBS_PG_DSN" "postgres://root@127.0.0.1:5432/test"}}"`, `dsn = "postgres://bob:p\"w\\d@db:5432/test"`},
		{`dsn = "{{env "UNSET" "postgres://root@127.0.0.1:5432/test"}}"`, `dsn = "postgres://root@127.0.0.1:5432/test"`},
		{`dsn = "{{ env "EMPTY" "fallback" }}"`, `dsn = "fallback"`},
		{`dsn = "{{env "BBS_PG_DSN"}}"`, `dsn = "postgres://bob:p\"w\\d@db:5432/test"`},
		// Run-time and request placeholders stay for later.
		{`url = "http://127.0.0.1:{{port}}/bbs?cmd={{cmd}}&m={{rand 1 9}}&s={{seq}}"`, `url = "http://127.0.0.1:{{port}}/bbs?cmd={{cmd}}&m={{rand 1 9}}&s={{seq}}"`},
		{"a = 1\nb = \"x\"", "a = 1\nb = \"x\""},
	}
	for _, tt := range tests {
		got, err := expandFileFuncs("x.toml", []byte(tt.in), lookup)
		if err != nil || string(got) != tt.want {
			t.Errorf("expandFileFuncs(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}

	bad := []struct{ in, want string }{
		{"a = 1\nb = \"{{getenv \"X\" \"y\"}}\"", `x.toml:2: {{getenv "X" "y"}}: unknown function "getenv"`},
		{"a = 1\n\nb = \"{{env \"X\" \"y\"\"", `x.toml:3: "{{env \"X\" \"y\"\"" has no closing }}`},
		{"b = \"{{env X}}\"", `x.toml:1: {{env X}}: env: want quoted arguments`},
		{"b = \"{{env \"X\" \"y\" \"z\"}}\"", `x.toml:1: {{env "X" "y" "z"}}: env takes a variable name and an optional default`},
		{"b = \"{{env}}\"", `x.toml:1: {{env}}: env takes a variable name`},
		{"b = \"{{env \"UNSET\"}}\"", `x.toml:1: {{env "UNSET"}}: environment variable UNSET is not set`},
		{"b = \"{{env \"X\" \"unterminated}}\"", `x.toml:1: {{env "X" "unterminated}}: env: want quoted arguments`},
	}
	for _, tt := range bad {
		_, err := expandFileFuncs("x.toml", []byte(tt.in), lookup)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("expandFileFuncs(%q) = %v; want an error containing %q", tt.in, err, tt.want)
		}
	}
}

// TestShippedExperimentsReadPGDSN checks that the shipped PostgreSQL runs
// take their DSN from BBS_PG_DSN, and the default without it.
func TestShippedExperimentsReadPGDSN(t *testing.T) {
	const def = "postgres://root@127.0.0.1:5432/test?sslmode=disable"
	const other = "postgres://bbs:bbs@db.example:6543/test?sslmode=disable"
	f := filepath.Join("..", "experiments", "article-postgres.toml")
	for _, tc := range []struct{ env, want string }{{"", def}, {other, other}} {
		t.Setenv("BBS_PG_DSN", tc.env)
		e, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range e.Runs {
			for i, a := range r.Args {
				if a == "-dsn" && i+1 < len(r.Args) && strings.HasPrefix(r.Args[i+1], "postgres") {
					n++
					if r.Args[i+1] != tc.want {
						t.Errorf("BBS_PG_DSN=%q: run %s -dsn %s; want %s", tc.env, r.Name, r.Args[i+1], tc.want)
					}
				}
			}
		}
		if n == 0 {
			t.Errorf("BBS_PG_DSN=%q: %s has no run with a PostgreSQL -dsn", tc.env, f)
		}
	}
}

// TestExperimentFileFuncError checks that Load names the file
// and line of a bad function call.
func TestExperimentFileFuncError(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bad.toml")
	os.WriteFile(p, []byte("name = \"x\"\n[server]\ncommand = [\"{{envv \\\"X\\\" \\\"y\\\"}}\"]\n"), 0o644)
	_, err := Load(p)
	if err == nil || !strings.Contains(err.Error(), p+":3:") || !strings.Contains(err.Error(), `unknown function "envv"`) {
		t.Errorf("Load(%s) = %v; want an error naming %s:3 and the unknown function", p, err, p)
	}
}
