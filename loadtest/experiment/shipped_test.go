package experiment

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"bbslab/loadtest/claim"
	"bbslab/loadtest/live"
	"bbslab/loadtest/outcome"
)

// TestShippedControls decides every shipped experiment file's claims on
// its committed report (docs/reports/NAME/experiment.json): each claim
// names a control, and on the recorded data, with the control's runs and
// client counts in the claim's place, the claim's own checks read "not
// reproduced": the checks fail where the effect is absent. The claims
// themselves must read as the committed report says, so the report is
// current with the file.
func TestShippedControls(t *testing.T) {
	files, err := filepath.Glob("../experiments/*.toml")
	if err != nil || len(files) < 10 {
		t.Fatalf("shipped files: %v (%d found); want the 10 or more under loadtest/experiments", err, len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".toml")
		t.Run(name, func(t *testing.T) {
			e, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range e.Claims {
				if c.Control == nil {
					t.Errorf("claim %s names no control", c.ID)
				}
			}
			res, err := committedResult(name)
			if errors.Is(err, fs.ErrNotExist) && len(e.Claims) == 0 {
				return
			}
			if err != nil {
				t.Fatalf("the committed report of %s: %v", name, err)
			}
			recorded := map[string]live.Outcome{}
			for _, c := range res.Claims {
				recorded[c.ID] = c.Outcome
			}
			for _, c := range claim.Evaluate(e.Claims, res, res.Quick) {
				if c.Control != nil && c.Control.Outcome != live.NotReproduced {
					t.Errorf("claim %s: its control (%s) reads %s on the committed report; want not reproduced:\n%s",
						c.ID, c.Control.Why, c.Control.Outcome, checkTexts(c.Control.Checks))
				}
				if c.Outcome != recorded[c.ID] {
					t.Errorf("claim %s reads %s on the committed report's data, the report says %q (regenerate the report): %s",
						c.ID, c.Outcome, recorded[c.ID], c.Reason)
				}
			}
		})
	}
}

// committedResult reads the committed report of a shipped file.
func committedResult(name string) (*outcome.Result, error) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "reports", name, "experiment.json"))
	if err != nil {
		return nil, err
	}
	var res outcome.Result
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

func checkTexts(ks []outcome.Check) string {
	var b strings.Builder
	for _, k := range ks {
		b.WriteString("  " + k.Text + "\n")
	}
	return b.String()
}
