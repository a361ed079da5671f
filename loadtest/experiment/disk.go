package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"bbslab/internal/cli"
)

// diskSpec names a command whose JSON output describes the disk under
// the target's database (a disk benchmark's -json output), run once before
// the runs and kept with the results, because an embedded database's
// commit time is the disk's fsync time. Options.Target's Disk
// says what the report shows of it.
type diskSpec struct {
	Command []string `toml:"command"`
	// Timeout bounds the command (default 2 minutes).
	Timeout cli.Duration `toml:"timeout"`
}

// runDisk runs the disk command and returns its JSON output.
func runDisk(ctx context.Context, d diskSpec, dir string, x func(string) string) (json.RawMessage, error) {
	timeout := time.Duration(d.Timeout)
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	argv := resolveCommand(d.Command, dir)
	for i := range argv {
		argv[i] = x(argv[i])
	}
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
