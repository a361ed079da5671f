package truth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
)

// ErrRefused marks a file name a Dir will not write: not a plain name, an
// existing file without replace, a symbolic link, a directory, or one of
// the files the Dir keeps. Nothing was written.
var ErrRefused = errors.New("file refused")

// refusal is an ErrRefused naming the file and the reason.
type refusal struct{ name, reason string }

func (e *refusal) Error() string        { return "file " + strconv.Quote(e.name) + ": " + e.reason }
func (e *refusal) Is(target error) bool { return target == ErrRefused }

func refuse(name, reason string) error { return &refusal{name, reason} }

// maxName is the longest name a Dir writes, in bytes (NAME_MAX on Linux).
const maxName = 255

// CheckName returns why name is not a plain file name a Dir may write, or
// nil: not empty, no path separator of any system, not . or .., no
// leading dot (the writer's temporary files are hidden), no NUL or other
// control character, no drive or reserved device name, at most 255 bytes.
func CheckName(name string) error {
	const plain = "give a plain file name such as truth.json; it is written into truth_dir"
	switch {
	case name == "":
		return refuse(name, "empty: "+plain)
	case strings.ContainsRune(name, 0):
		return refuse(name, "holds a NUL byte: "+plain)
	case filepath.IsAbs(name) || strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`):
		return refuse(name, "is an absolute path: "+plain)
	case strings.ContainsAny(name, `/\`):
		return refuse(name, "holds a path separator: "+plain)
	case name == "." || name == "..":
		return refuse(name, "is not a file name: "+plain)
	case strings.HasPrefix(name, "."):
		return refuse(name, "starts with a dot (hidden names are kept for temporary files): "+plain)
	case strings.ContainsFunc(name, unicode.IsControl):
		return refuse(name, "holds a control character: "+plain)
	case len(name) > maxName:
		return refuse(name, fmt.Sprintf("is longer than %d bytes", maxName))
	case !filepath.IsLocal(name) || filepath.VolumeName(name) != "":
		return refuse(name, "names a drive or a reserved device: "+plain)
	}
	return nil
}

// A Dir is the one directory truth reports are written into, by plain
// file name, through an os.Root, which refuses any name that resolves
// outside it. It never writes through a symbolic link, replaces an
// existing file only when asked, and never writes the files it keeps (the
// board's database and logs), compared by name in the same directory and
// by identity (os.SameFile), so that a hard link or another spelling of
// the directory does not pass. Its methods are safe for concurrent use.
type Dir struct {
	root *os.Root
	path string   // as given, for messages
	keep []string // files never written
}

// OpenDir opens the directory at path; keep lists files never to be
// written, even when they lie elsewhere (a hard link to one is refused).
func OpenDir(path string, keep []string) (*Dir, error) {
	root, err := os.OpenRoot(path)
	if err != nil {
		return nil, err
	}
	return &Dir{root: root, path: path, keep: keep}, nil
}

// Close releases the directory.
func (d *Dir) Close() error { return d.root.Close() }

// Check returns why name may not be written (an ErrRefused, or the error
// that stopped the check), or nil when Write would write it.
func (d *Dir) Check(name string, replace bool) error {
	if err := CheckName(name); err != nil {
		return err
	}
	here, err := d.root.Stat(".")
	if err != nil {
		return fmt.Errorf("truth_dir %s: %w", d.path, err)
	}
	fi, err := d.root.Lstat(name)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("truth_dir %s: %w", d.path, err)
	}
	for _, k := range d.keep {
		if kept(here, name, fi, k) {
			return refuse(name, "is the board's own file "+strconv.Quote(k)+" (its database or a log): never written, even with replace")
		}
	}
	switch {
	case fi == nil:
		return nil
	case fi.Mode()&fs.ModeSymlink != 0:
		return refuse(name, "is a symbolic link in truth_dir: the board writes through none")
	case fi.IsDir():
		return refuse(name, "is a directory")
	case !fi.Mode().IsRegular():
		return refuse(name, "is not a regular file")
	case !replace:
		return refuse(name, "exists in truth_dir: add replace=1 to replace it")
	}
	return nil
}

// kept reports whether name in the directory here (fi: its entry, nil when
// there is none) is the file k: the same name (in any case) in the same
// directory, or the same file.
func kept(here fs.FileInfo, name string, fi fs.FileInfo, k string) bool {
	if strings.EqualFold(filepath.Base(k), name) {
		if kd, err := os.Stat(filepath.Dir(k)); err == nil && os.SameFile(here, kd) {
			return true
		}
	}
	if fi != nil {
		if kf, err := os.Stat(k); err == nil && os.SameFile(fi, kf) {
			return true
		}
	}
	return false
}

// Write writes rep as indented JSON to name in the directory, atomically:
// a hidden temporary file, then a rename over name when replace is set,
// else a hard link that fails if name appeared meanwhile. A refusal
// (ErrRefused) writes nothing.
func (d *Dir) Write(name string, rep Report, replace bool) error {
	if err := d.Check(name, replace); err != nil {
		return err
	}
	tmp, f, err := d.createTemp()
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	enc.SetIndent("", "  ")
	err = enc.Encode(rep)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && replace {
		err = d.root.Rename(tmp, name)
	} else if err == nil {
		if err = d.root.Link(tmp, name); errors.Is(err, fs.ErrExist) {
			err = refuse(name, "exists in truth_dir: add replace=1 to replace it")
		}
	}
	if rerr := d.root.Remove(tmp); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) && err == nil {
		err = rerr
	}
	if err != nil && !errors.Is(err, ErrRefused) {
		return fmt.Errorf("truth file %s in %s: %w", name, d.path, err)
	}
	return err
}

// createTemp creates a new hidden file in the directory for writing.
func (d *Dir) createTemp() (string, *os.File, error) {
	for range 10 {
		tmp := ".truth-" + strconv.FormatUint(rand.Uint64(), 36) + ".tmp"
		f, err := d.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			return tmp, f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", nil, fmt.Errorf("truth file in %s: %w", d.path, err)
		}
	}
	return "", nil, fmt.Errorf("truth file in %s: no free temporary name", d.path)
}
