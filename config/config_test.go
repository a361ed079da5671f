package config

import (
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func parse(t *testing.T, args ...string) (Config, error) {
	t.Helper()
	fs := flag.NewFlagSet("bbs", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return Parse(fs, args, nil)
}

func writeFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "bbs.toml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDefaults(t *testing.T) {
	c, err := parse(t)
	if err != nil {
		t.Fatal(err)
	}
	if c != Default() {
		t.Errorf("Parse() = %+v; want the defaults", c)
	}
	d := Default()
	if d.Workers != 10 || d.Queue != 100 || time.Duration(d.QueueTimeout) != 5*time.Second || d.Pool != 10 ||
		d.PoolMode != "fixed" || d.PoolValidate != "off" || d.DB != "sqlite" || d.DSN != "bbs.db" || d.PageSize != 30 || d.SeedPosts != 1000 ||
		d.Addr != "127.0.0.1:8080" || d.AdminAddr != "127.0.0.1:6060" {
		t.Errorf("Default() = %+v; want the documented defaults", d)
	}
}

// TestExampleFile checks that the shipped example parses to the defaults,
// so it documents them truthfully.
func TestExampleFile(t *testing.T) {
	c, err := parse(t, "-config", "bbs.example.toml")
	if err != nil {
		t.Fatal(err)
	}
	if c != Default() {
		t.Errorf("bbs.example.toml = %+v;\nwant defaults %+v", c, Default())
	}
}

func TestFileAndFlags(t *testing.T) {
	p := writeFile(t, "workers = 5\npool = 5\nqueue_timeout = \"250ms\"\ndb = \"postgres\"\ndsn = \"postgres://root@127.0.0.1:5432/test\"\n")
	c, err := parse(t, "-config", p, "-pool", "7", "-queue", "3")
	if err != nil {
		t.Fatal(err)
	}
	if c.Workers != 5 || c.Pool != 7 || c.Queue != 3 || time.Duration(c.QueueTimeout) != 250*time.Millisecond || c.DB != "postgres" {
		t.Errorf("file + flags = %+v; want workers 5 (file), pool 7 (flag over file), queue 3 (flag), queue_timeout 250ms", c)
	}
	c, err = parse(t, "-config", writeFile(t, "pool_validate = \"query\"\n"), "-pool-validate", "ping")
	if err != nil || c.PoolValidate != "ping" {
		t.Errorf("pool_validate \"query\" in the file, -pool-validate ping: %q, %v; want \"ping\" (flag over file)", c.PoolValidate, err)
	}
	// Flags before -config win as well.
	c, err = parse(t, "-pool", "9", "-config", p)
	if err != nil || c.Pool != 9 {
		t.Errorf("flag before -config: pool = %d, %v; want 9", c.Pool, err)
	}
}

func TestInvalid(t *testing.T) {
	tests := []struct {
		args []string
		want []string // substrings of the message
	}{
		{[]string{"-workers", "-1"}, []string{"workers = -1", "0..100000"}},
		{[]string{"-pool", "0"}, []string{"pool = 0", "1..10000"}},
		{[]string{"-pool", "5", "-pool-min", "6"}, []string{"pool_min = 6", "pool (5)"}},
		{[]string{"-pool-mode", "lazy"}, []string{`pool_mode = "lazy"`, `"fixed" or "none"`}},
		{[]string{"-lang", "jp"}, []string{`lang = "jp"`, `"auto"`, `"en" or "ja"`}},
		{[]string{"-pool-validate", "always"}, []string{`pool_validate = "always"`, `"off"`, `"ping"`, `"query"`}},
		{[]string{"-db", "postgres", "-dsn", "postgres://x@h/db", "-pg-exec-mode", "prepared"}, []string{`pg_exec_mode = "prepared"`, `"exec"`, `"simple_protocol"`}},
		{[]string{"-pg-exec-mode", "exec"}, []string{`pg_exec_mode = "exec"`, `db = "sqlite"`}},
		{[]string{"-db", "mysql"}, []string{`db = "mysql"`, `"sqlite" or "postgres"`}},
		{[]string{"-page-size", "501"}, []string{"page_size = 501", "1..500"}},
		{[]string{"-queue-timeout", "0s"}, []string{"queue_timeout = 0s", "above 0"}},
		{[]string{"-queue-timeout", "soon"}, []string{"queue-timeout", "not a duration"}},
		{[]string{"-addr", "8080"}, []string{`addr = "8080"`, "host:port"}},
		{[]string{"-admin-addr", "0.0.0.0:6060"}, []string{"admin_addr", "loopback address unless admin_token"}},
		{[]string{"-db", "postgres", "-dsn", "bbs.db"}, []string{`dsn = "bbs.db"`, "PostgreSQL URL"}},
		{[]string{"-workers", "many"}, []string{"workers"}},
		{[]string{"-nosuchflag"}, []string{"nosuchflag"}},
		{[]string{"extra"}, []string{`unexpected argument "extra"`}},
	}
	for _, tt := range tests {
		_, err := parse(t, tt.args...)
		if err == nil {
			t.Errorf("Parse(%q) = nil error; want one", tt.args)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Parse(%q) = %q; want it to mention %q", tt.args, err, w)
			}
		}
	}
	if _, err := parse(t, "-admin-addr", "0.0.0.0:6060", "-admin-token", "s3cret"); err != nil {
		t.Errorf("non-loopback admin with a token: %v; want it allowed", err)
	}
}

func TestInvalidFile(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"workers = 5\npools = 3\n", []string{`unknown key "pools"`, "line 2"}},
		{"[server]\nworkers = 1\n", []string{"unknown key", "server"}},
		{"workers = \"five\"\n", []string{"workers", ".toml:1:"}},
		{"queue_timeout = \"5 parsecs\"\n", []string{"queue_timeout", "not a duration"}},
		{"workers = \n", []string{".toml:1:"}},
	}
	for _, tt := range tests {
		_, err := parse(t, "-config", writeFile(t, tt.text))
		if err == nil {
			t.Errorf("file %q: no error", tt.text)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("file %q: error %q; want it to mention %q", tt.text, err, w)
			}
		}
	}
	_, err := parse(t, "-config", filepath.Join(t.TempDir(), "missing.toml"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v; want a not-exist error", err)
	}
}

func FuzzLoad(f *testing.F) {
	example, _ := os.ReadFile("bbs.example.toml")
	f.Add(string(example))
	f.Add("workers = 5\npool = 5\n")
	f.Add("queue_timeout = \"1h\"\n[x]\ny=1")
	f.Fuzz(func(t *testing.T, text string) {
		p := filepath.Join(t.TempDir(), "f.toml")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		c := Default()
		if err := c.Load(p); err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			return
		}
		if c.Pool < 1 || c.PoolMin > c.Pool || c.Workers < 0 || c.PageSize < 1 || c.QueueTimeout <= 0 {
			t.Fatalf("Validate accepted %+v", c)
		}
	})
}
