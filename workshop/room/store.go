package room

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// A stored upload's file name: its sequence number and the laptop's name,
// e.g. 000012-ana.json. The file is the result as the laptop sent it, so
// the lab's tools read it as they read the laptop's own copy.
var storedName = regexp.MustCompile(`^([0-9]{6,})-(` + laptopPattern + `)\.json$`)

// tmpPrefix starts the name of an upload not yet accepted; Open removes
// any left by a crash, since none of them was acknowledged.
const tmpPrefix = ".upload-"

// writeTemp writes b to a new temporary file in dir and syncs it.
func writeTemp(dir string, b []byte) (string, error) {
	f, err := os.CreateTemp(dir, tmpPrefix+"*.json")
	if err != nil {
		return "", fmt.Errorf("room: store the upload: %w", err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("room: store the upload: %w", err)
	}
	return f.Name(), nil
}

// commit gives the synced temporary file tmp its stored name and syncs
// the directory, so that the upload is on disk once commit returns.
func commit(dir, tmp string, seq int, laptop string) (string, error) {
	name := fmt.Sprintf("%06d-%s.json", seq, laptop)
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("room: store the upload: %w", err)
	}
	if err := syncDir(dir); err != nil {
		return "", fmt.Errorf("room: store the upload: %w", err)
	}
	return name, nil
}

// syncDir makes a rename in dir durable. Windows cannot sync a
// directory; its renames are durable on NTFS's own terms.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// load reads every stored upload of dir in their order, removing the
// temporary files of uploads never accepted, and returns the highest
// sequence number stored. A stored file it cannot read is left in place
// and reported through logf; the others load.
func load(dir string, logf func(string, ...any)) ([]*upload, int, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, 0, fmt.Errorf("room: read %s: %w", dir, err)
	}
	var ups []*upload
	last := 0
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if strings.HasPrefix(e.Name(), tmpPrefix) {
			os.Remove(path)
			continue
		}
		m := storedName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		seq, _ := strconv.Atoi(m[1])
		last = max(last, seq)
		u, err := readFile(path)
		if err != nil {
			logf("room: %s: %v (left in place, not shown)", path, err)
			continue
		}
		info, err := e.Info()
		if err != nil {
			return nil, 0, fmt.Errorf("room: %w", err)
		}
		u.Seq, u.Laptop, u.File, u.Received = seq, m[2], e.Name(), info.ModTime()
		ups = append(ups, u)
	}
	slices.SortFunc(ups, func(a, b *upload) int { return a.Seq - b.Seq })
	return ups, last, nil
}
