package fleet

import "os"

func osMkdirTemp() (string, error) { return os.MkdirTemp("", "fleet-board-") }
