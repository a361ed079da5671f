package pgsetup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// composeFile is the container file that docs/postgres.md and Hint name.
var composeFile = filepath.Join("..", "..", "docs", "postgres", "compose.yaml")

// TestComposeFile checks the container file's syntax and content (there is
// no container engine to run it here): one postgres service on an official
// postgres 15 or 16 image, port 5432 on loopback, and the user, password
// and database that Hint's DSN and its docker run line use.
func TestComposeFile(t *testing.T) {
	b, err := os.ReadFile(composeFile)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Services map[string]struct {
			Image       string            `yaml:"image"`
			Environment map[string]string `yaml:"environment"`
			Ports       []string          `yaml:"ports"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatalf("%s: %v", composeFile, err)
	}
	svc, ok := c.Services["postgres"]
	if !ok || len(c.Services) != 1 {
		t.Fatalf("%s: services %v; want one named postgres", composeFile, c.Services)
	}
	if svc.Image != "postgres:16" && svc.Image != "postgres:15" {
		t.Errorf("%s: image %q; want postgres:15 or postgres:16", composeFile, svc.Image)
	}
	if len(svc.Ports) != 1 || svc.Ports[0] != "127.0.0.1:5432:5432" {
		t.Errorf("%s: ports %q; want [127.0.0.1:5432:5432]", composeFile, svc.Ports)
	}
	env := svc.Environment
	if env["POSTGRES_USER"] != "bbs" || env["POSTGRES_PASSWORD"] != "bbs" || env["POSTGRES_DB"] != "test" {
		t.Errorf("%s: environment %v; want POSTGRES_USER=bbs, POSTGRES_PASSWORD=bbs, POSTGRES_DB=test", composeFile, env)
	}
	// Hint's docker run line and DSN say the same.
	for _, want := range []string{
		"-p 127.0.0.1:5432:5432", "-e POSTGRES_USER=bbs", "-e POSTGRES_PASSWORD=bbs", "-e POSTGRES_DB=test", " " + svc.Image,
		"postgres://bbs:bbs@127.0.0.1:5432/test", "docs/postgres/compose.yaml", "docs/postgres.md",
	} {
		if !strings.Contains(Hint, want) {
			t.Errorf("Hint lacks %q, which the compose file implies:\n%s", want, Hint)
		}
	}
}
