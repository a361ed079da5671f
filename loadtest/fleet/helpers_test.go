package fleet

import (
	"os"
	"path/filepath"
	"testing"
)

func osMkdirTemp() (string, error) { return os.MkdirTemp("", "fleet-board-") }

// TestMain removes the board built for the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if boardBin != "" {
		os.RemoveAll(filepath.Dir(boardBin))
	}
	os.Exit(code)
}
