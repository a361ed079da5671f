package config

import (
	"encoding/json"
	"flag"
	"io"
	"reflect"
	"strings"
	"testing"
)

func TestRedactDSN(t *testing.T) {
	tests := []struct{ in, want string }{
		{"postgres://bob:s3cret@db:5432/test?sslmode=disable", "postgres://bob:xxxxx@db:5432/test?sslmode=disable"},
		{"postgres://root@127.0.0.1:5432/test?sslmode=disable", "postgres://root@127.0.0.1:5432/test?sslmode=disable"},
		{"postgresql://db/test?password=s3cret&user=bob", "postgresql://db/test?password=xxxxx&user=bob"},
		{"host=db user=bob password=s3cret dbname=test", "host=db user=bob password=xxxxx dbname=test"},
		{"host=db password = 'se cr\\'et' dbname=test", "host=db password = xxxxx dbname=test"},
		{"file:bbs.db?_journal_mode=WAL", "file:bbs.db?_journal_mode=WAL"},
		{"bbs.db", "bbs.db"},
	}
	for _, tt := range tests {
		got := RedactDSN(tt.in)
		if got != tt.want {
			t.Errorf("RedactDSN(%q) = %q; want %q", tt.in, got, tt.want)
		}
		if strings.Contains(got, "s3cret") || strings.Contains(got, "cr\\'et") {
			t.Errorf("RedactDSN(%q) = %q still holds the password", tt.in, got)
		}
	}
}

func TestRedactArgs(t *testing.T) {
	in := []string{"-db", "postgres", "-dsn", "postgres://bob:s3cret@db/test", "--admin-token=tok3n",
		"-admin-token", "tok3n", "-dsn=host=db password=s3cret", "-workers", "5", "postgres://x:s3cret@h/d"}
	want := []string{"-db", "postgres", "-dsn", "postgres://bob:xxxxx@db/test", "--admin-token=xxxxx",
		"-admin-token", "xxxxx", "-dsn=host=db password=xxxxx", "-workers", "5", "postgres://x:xxxxx@h/d"}
	got := RedactArgs(in)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RedactArgs(%q)\n = %q\nwant %q", in, got, want)
	}
	if in[3] != "postgres://bob:s3cret@db/test" {
		t.Errorf("RedactArgs changed its input: %q", in)
	}
}

func TestRedactedConfig(t *testing.T) {
	c := Default()
	c.DB, c.DSN, c.AdminToken = "postgres", "postgres://bob:s3cret@db/test", "tok3n"
	m := c.Redacted()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	js := string(b)
	for _, secret := range []string{"s3cret", "tok3n"} {
		if strings.Contains(js, secret) {
			t.Errorf("Redacted() JSON %s holds %q", js, secret)
		}
	}
	if m["dsn"] != "postgres://bob:xxxxx@db/test" || m["admin_token"] != "set" {
		t.Errorf("Redacted() dsn = %v, admin_token = %v; want the redacted URL and \"set\"", m["dsn"], m["admin_token"])
	}
	c.AdminToken = ""
	if got := c.Redacted()["admin_token"]; got != "unset" {
		t.Errorf("Redacted() admin_token = %v with no token; want \"unset\"", got)
	}
	// Every key of the TOML file is shown, with the file's spelling: the
	// keys Redacted gives are exactly the flags Parse binds (a flag is its
	// key with "_" spelled "-"), the [profile] table's keys apart.
	fs := flag.NewFlagSet("bbs", flag.ContinueOnError)
	bind(fs, &c)
	flags := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { flags[f.Name] = true })
	for k, v := range m {
		if k == "profile" {
			p, ok := v.(map[string]any)
			if !ok || len(p) != 2 || p["block_rate"] == nil || p["mutex_fraction"] == nil {
				t.Errorf("Redacted()[\"profile\"] = %#v; want block_rate and mutex_fraction", v)
			}
			continue
		}
		if !flags[strings.ReplaceAll(k, "_", "-")] {
			t.Errorf("Redacted() has key %q, which no flag binds", k)
		}
		delete(flags, strings.ReplaceAll(k, "_", "-"))
	}
	delete(flags, "block-rate")
	delete(flags, "mutex-fraction")
	if len(flags) > 0 {
		t.Errorf("Redacted() lacks the keys of flags %v", flags)
	}
	if !strings.Contains(js, `"queue_timeout":"5s"`) {
		t.Errorf("Redacted() JSON %s: want durations as strings such as \"queue_timeout\":\"5s\"", js)
	}
}

func TestEnvSecrets(t *testing.T) {
	env := map[string]string{EnvDSN: "postgres://bob:s3cret@db/test", EnvAdminToken: "tok3n"}
	getenv := func(k string) string { return env[k] }
	parseEnv := func(args ...string) Config {
		t.Helper()
		fs := flag.NewFlagSet("bbs", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		c, err := Parse(fs, args, getenv)
		if err != nil {
			t.Fatalf("Parse(%q) with env: %v", args, err)
		}
		return c
	}
	file := writeFile(t, "db = \"postgres\"\ndsn = \"postgres://file@db/test\"\nadmin_token = \"fromfile\"\n")

	c := parseEnv("-db", "postgres")
	if c.DSN != env[EnvDSN] || c.AdminToken != "tok3n" {
		t.Errorf("env only: dsn %q, token %q; want the environment's", c.DSN, c.AdminToken)
	}
	c = parseEnv("-config", file)
	if c.DSN != env[EnvDSN] || c.AdminToken != "tok3n" {
		t.Errorf("env over file: dsn %q, token %q; want the environment's", c.DSN, c.AdminToken)
	}
	c = parseEnv("-config", file, "-dsn", "postgres://flag@db/test", "-admin-token", "fromflag")
	if c.DSN != "postgres://flag@db/test" || c.AdminToken != "fromflag" {
		t.Errorf("flags over env: dsn %q, token %q; want the flags'", c.DSN, c.AdminToken)
	}
	env = map[string]string{}
	c = parseEnv("-config", file)
	if c.DSN != "postgres://file@db/test" || c.AdminToken != "fromfile" {
		t.Errorf("no env: dsn %q, token %q; want the file's", c.DSN, c.AdminToken)
	}
}
