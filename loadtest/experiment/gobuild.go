package experiment

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// built holds the builds of "go run" commands, by package and flags.
var built sync.Map // string -> func() (string, error)

// besideExecutable is the running program's folder (a release bundle's).
var besideExecutable = func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return filepath.Dir(exe)
}

// binFolder is where go run commands' binaries are built.
var binFolder = func() (string, error) {
	cache, err := os.UserCacheDir()
	return filepath.Join(cache, "bbslab", "bin"), err
}

// goRunBuilt returns argv with a leading "go run [flags] PKG" replaced by a binary of
// PKG, so that a run starts the program, not a go run that waits for it: built once
// into the user's cache, or without go the program of PKG's name beside this one. A
// flag whose value stands apart ("-tags x") leaves argv as it is.
func goRunBuilt(argv []string, dir string) ([]string, error) {
	if len(argv) < 3 || argv[0] != "go" || argv[1] != "run" {
		return argv, nil
	}
	i := 2
	for i < len(argv) && strings.HasPrefix(argv[i], "-") {
		i++
	}
	if i == len(argv) || !strings.Contains(argv[i], "/") && !strings.HasSuffix(argv[i], ".go") {
		return argv, nil
	}
	flags, pkg := argv[2:i], argv[i]
	name := strings.TrimSuffix(filepath.Base(pkg), ".go")
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	key := strings.Join(append([]string{filepath.Join(dir, pkg)}, flags...), "\x00")
	build, _ := built.LoadOrStore(key, sync.OnceValues(func() (string, error) {
		return goBuild(dir, pkg, name, flags, key)
	}))
	path, err := build.(func() (string, error))()
	if err != nil {
		return nil, err
	}
	return append([]string{path}, argv[i+1:]...), nil
}

func goBuild(dir, pkg, name string, flags []string, key string) (string, error) {
	if _, err := exec.LookPath("go"); err != nil {
		p := filepath.Join(besideExecutable(), name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
		return "", fmt.Errorf("go run %s: go is not on PATH, and no %s beside this program to run instead", pkg, name)
	}
	bin, err := binFolder()
	if err != nil {
		return "", errors.Join(fmt.Errorf("go run %s: no cache folder to build it into", pkg), err)
	}
	sum := sha256.Sum256([]byte(key))
	out := filepath.Join(bin, hex.EncodeToString(sum[:6]), name)
	cmd := exec.Command("go", append(append([]string{"build", "-o", out}, flags...), pkg)...)
	cmd.Dir = dir
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go run %s: go build: %v: %s", pkg, err, bytes.TrimSpace(msg))
	}
	return out, nil
}
