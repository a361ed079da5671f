package truth

import (
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckName(t *testing.T) {
	for _, name := range []string{"truth.json", "run-1_x.json", "x..y", "%2e%2e%2fx", "ü.json"} {
		if err := CheckName(name); err != nil {
			t.Errorf("CheckName(%q) = %v; want nil", name, err)
		}
	}
	for _, tt := range []struct{ name, why string }{
		{"", "empty"},
		{".", "not a file name"},
		{"..", "not a file name"},
		{"../x", "path separator"},
		{"a/b", "path separator"},
		{`..\x`, "path separator"},
		{`a\b`, "path separator"},
		{"/tmp/x", "absolute path"},
		{`\x`, "absolute path"},
		{"x\x00y", "NUL"},
		{".hidden", "starts with a dot"},
		{".truth-1.tmp", "starts with a dot"},
		{"a\nb", "control character"},
		{strings.Repeat("x", 256), "longer than 255"},
	} {
		err := CheckName(tt.name)
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tt.why) {
			t.Errorf("CheckName(%q) = %v; want a refusal saying %q", tt.name, err, tt.why)
		}
	}
}

// tree reads every entry under dirs without following symbolic links: its
// kind and its content (a link's target), by path.
func tree(t *testing.T, dirs ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch {
			case e.Type()&fs.ModeSymlink != 0:
				l, err := os.Readlink(p)
				out[p] = "link " + l
				return err
			case e.IsDir():
				out[p] = "dir"
			default:
				b, err := os.ReadFile(p)
				out[p] = "file " + string(b)
				return err
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestDirRefuses: a Dir writes nothing for a name that is not plain, a
// symbolic link (also out of the directory), a directory, an existing file
// without replace, or a kept file by name (any case, in the same directory
// however it is spelled, also before it exists) or by identity (a hard
// link); the directory and the one outside are unchanged after each.
func TestDirRefuses(t *testing.T) {
	base := t.TempDir()
	dir, out := filepath.Join(base, "truth"), filepath.Join(base, "outside")
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{dir, out, filepath.Join(dir, "sub")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(out, "target"), "outside")
	write(filepath.Join(out, "other.db"), "other database")
	write(filepath.Join(dir, "bbs.db"), "database")
	write(filepath.Join(dir, "old.json"), "old")
	if err := os.Symlink(filepath.Join(out, "target"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("old.json", filepath.Join(dir, "inlink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(out, "other.db"), filepath.Join(dir, "hard")); err != nil {
		t.Fatal(err)
	}
	alias := filepath.Join(base, "alias") // another spelling of dir
	if err := os.Symlink(dir, alias); err != nil {
		t.Fatal(err)
	}
	keep := []string{
		alias + "/sub/../bbs.db", alias + "/bbs.db-wal", dir + "/bbs.db-shm",
		filepath.Join(out, "other.db"),
	}
	d, err := OpenDir(dir, keep)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rep := Report{Version: Version, Requests: 7}
	before := tree(t, base)
	for _, tt := range []struct {
		name    string
		replace bool
		why     string
	}{
		{"../x", true, "path separator"},
		{"../outside/target", true, "path separator"},
		{"/tmp/x", true, "absolute path"},
		{filepath.Join(out, "target"), true, "absolute path"},
		{"..", true, "not a file name"},
		{"", true, "empty"},
		{"link", true, "symbolic link"},
		{"inlink", true, "symbolic link"},
		{"sub", true, "directory"},
		{"old.json", false, "exists"},
		{"bbs.db", true, "board's own file"},
		{"BBS.DB", true, "board's own file"},
		{"bbs.db-wal", true, "board's own file"},
		{"bbs.db-shm", true, "board's own file"},
		{"hard", true, "board's own file"},
	} {
		err := d.Write(tt.name, rep, tt.replace)
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tt.why) {
			t.Errorf("Write(%q, replace %v) = %v; want a refusal saying %q", tt.name, tt.replace, err, tt.why)
		}
		if after := tree(t, base); !maps.Equal(after, before) {
			t.Fatalf("Write(%q, replace %v) changed the files:\n%v\nwas\n%v", tt.name, tt.replace, after, before)
		}
	}

	// Written: a new name, and an existing file with replace; no
	// temporary file is left.
	for _, tt := range []struct {
		name    string
		replace bool
	}{{"new.json", false}, {"old.json", true}} {
		if err := d.Write(tt.name, rep, tt.replace); err != nil {
			t.Fatalf("Write(%q, replace %v) = %v", tt.name, tt.replace, err)
		}
		var back Report
		b, err := os.ReadFile(filepath.Join(dir, tt.name))
		if err != nil || json.Unmarshal(b, &back) != nil || back.Requests != 7 {
			t.Errorf("Write(%q, replace %v): file %q, %v; want the report", tt.name, tt.replace, b, err)
		}
	}
	after := tree(t, base)
	for p := range after {
		if strings.HasPrefix(filepath.Base(p), ".truth-") {
			t.Errorf("temporary file %s left behind", p)
		}
	}
	if len(after) != len(before)+1 || after[filepath.Join(out, "target")] != "file outside" || after[filepath.Join(dir, "bbs.db")] != "file database" {
		t.Errorf("files after the writes:\n%v\nwant one more than\n%v", after, before)
	}
}

// TestOpenDirMissing: a directory that does not exist is an error.
func TestOpenDirMissing(t *testing.T) {
	if _, err := OpenDir(filepath.Join(t.TempDir(), "none"), nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenDir(missing) = %v; want ErrNotExist", err)
	}
}
