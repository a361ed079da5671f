package fleet

import (
	"os"
	"path/filepath"
	"testing"
)

// boardBin is the board built for the tests (fleet_test.go's board).
var boardBin string

func osMkdirTemp() (string, error) { return os.MkdirTemp("", "fleet-board-") }

// TestMain removes the board built for the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if boardBin != "" {
		os.RemoveAll(filepath.Dir(boardBin))
	}
	os.Exit(code)
}
