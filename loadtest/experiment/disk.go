package experiment

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"bbslab/internal/cli"
)

// diskSpec names a benchmark of the database's disk, run once before the
// runs; its JSON output is kept with the results.
type diskSpec struct {
	Command []string     `toml:"command"`
	Timeout cli.Duration `toml:"timeout"` // default 2 minutes
}

func runDisk(ctx context.Context, d diskSpec, dir string, x func(string) string) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(time.Duration(d.Timeout), 2*time.Minute))
	defer cancel()
	argv := mapped(resolveCommand(d.Command, dir), x)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("disk benchmark %q: %v: %s", strings.Join(argv, " "), err, strings.TrimSpace(errb.String()))
	}
	if !json.Valid(out.Bytes()) {
		return nil, fmt.Errorf("disk benchmark %q: its output is not JSON", strings.Join(argv, " "))
	}
	return json.RawMessage(bytes.TrimSpace(out.Bytes())), nil
}
