package bbs

import (
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"bbslab/entity/fake"
	"bbslab/truth"
)

// files reads every entry under dir without following symbolic links: its
// kind and content (a link's target), by path.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
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
	return out
}

// truthDirBoard serves a board's admin handler with truth_dir at
// base/truth, whose bbs.db (and -wal, -shm) are kept as a database's;
// base/outside holds a file a symbolic link in truth_dir points to, and
// truth_dir an old.json.
func truthDirBoard(t *testing.T, truthFile string) (adm, base string) {
	t.Helper()
	base = t.TempDir()
	dir, out := filepath.Join(base, "truth"), filepath.Join(base, "outside")
	for _, d := range []string{dir, out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, s := range map[string]string{filepath.Join(out, "target"): "outside", filepath.Join(dir, "bbs.db"): "database", filepath.Join(dir, "old.json"): "old"} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(out, "target"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "bbs.db")
	tdir, err := truth.OpenDir(dir, []string{db, db + "-wal", db + "-shm", db + "-journal"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tdir.Close() })
	s := New(Options{Store: fake.New(10), TruthDir: tdir, TruthFile: truthFile})
	s.SetReady(true)
	return newAdmin(t, s), base
}

// TestTruthStopRefusesFiles: every stop naming a file that is not a plain
// name in truth_dir, a symbolic link, an existing file without replace or
// the database's files answers 400 with the reason as JSON, writes nothing
// (the files under truth_dir and outside it are unchanged) and leaves the
// window open; replace=1 then replaces an existing file.
func TestTruthStopRefusesFiles(t *testing.T) {
	adm, base := truthDirBoard(t, "")
	db := filepath.Join(base, "truth", "bbs.db")
	if resp, body := post(t, adm+"/admin/truth/start", nil); resp.StatusCode != 200 {
		t.Fatalf("truth start: %d %s", resp.StatusCode, body)
	}
	before := files(t, base)
	for _, tt := range []struct{ query, why string }{
		{"file=../x", "path separator"},
		{"file=..%2Fx", "path separator"},
		{"file=..%2F..%2Fetc%2Fpasswd", "path separator"},
		{"file=%2E%2E", "not a file name"},
		{"file=..", "not a file name"},
		{"file=a/b", "path separator"},
		{"file=a%2Fb", "path separator"},
		{"file=..%5Cx", "path separator"},
		{"file=../outside/target&replace=1", "path separator"},
		{"file=/tmp/x", "absolute path"},
		{"file=%2Ftmp%2Fx", "absolute path"},
		{"file=" + db + "&replace=1", "absolute path"},
		{"file=x%00y", "NUL"},
		{"file=", "empty"},
		{"file=.hidden", "starts with a dot"},
		{"file=link", "symbolic link"},
		{"file=link&replace=1", "symbolic link"},
		{"file=old.json", "exists"},
		{"file=old.json&replace=0", "exists"},
		{"file=ok.json&replace=maybe", "replace"},
		{"file=bbs.db&replace=1", "board's own file"},
		{"file=bbs.db-wal&replace=1", "board's own file"},
		{"file=bbs.db-shm", "board's own file"},
		{"file=BBS.db&replace=1", "board's own file"},
	} {
		resp, body := post(t, adm+"/admin/truth/stop?"+tt.query, nil)
		var e struct {
			Status int
			Error  string
		}
		if resp.StatusCode != 400 || json.Unmarshal([]byte(body), &e) != nil || e.Status != 400 || !strings.Contains(e.Error, tt.why) {
			t.Errorf("stop?%s = %d %s; want 400 with JSON {status, error} saying %q", tt.query, resp.StatusCode, body, tt.why)
		}
		if after := files(t, base); !maps.Equal(after, before) {
			t.Fatalf("stop?%s changed the files:\n%v\nwas\n%v", tt.query, after, before)
		}
	}
	if _, body := get(t, adm+"/admin/truth"); !strings.Contains(body, `"open":true`) {
		t.Errorf("after the refusals: %.200s; want the window still open", body)
	}
	resp, body := post(t, adm+"/admin/truth/stop?file=old.json&replace=1", nil)
	b, _ := os.ReadFile(filepath.Join(base, "truth", "old.json"))
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"version": 1`) {
		t.Errorf("stop?file=old.json&replace=1 = %d %.200s, file %.100q; want 200 and the report in the file", resp.StatusCode, body, b)
	}
}

// TestTruthStopNoDir: without truth_dir a stop naming a file answers 400
// saying how to allow it, writes nothing and leaves the window open.
func TestTruthStopNoDir(t *testing.T) {
	s := New(Options{Store: fake.New(10)})
	adm := newAdmin(t, s)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	before := files(t, wd)
	post(t, adm+"/admin/truth/start", nil)
	resp, body := post(t, adm+"/admin/truth/stop?file=truth-no-dir.json", nil)
	if resp.StatusCode != 400 || !strings.Contains(body, "-truth-dir") || !strings.Contains(body, "truth_dir") {
		t.Errorf("stop?file= without truth_dir = %d %s; want 400 naming -truth-dir and truth_dir", resp.StatusCode, body)
	}
	if after := files(t, wd); !maps.Equal(after, before) {
		t.Errorf("stop?file= without truth_dir changed the working directory")
	}
	if resp, _ := post(t, adm+"/admin/truth/stop", nil); resp.StatusCode != 200 {
		t.Errorf("stop without a file after the refusal: %d; want 200 (the window was still open)", resp.StatusCode)
	}
}

// TestTruthFileReplaced: truth_file is written by every stop without
// ?file=, replacing the previous window's.
func TestTruthFileReplaced(t *testing.T) {
	adm, base := truthDirBoard(t, "every.json")
	p := filepath.Join(base, "truth", "every.json")
	var starts []string
	for range 2 {
		post(t, adm+"/admin/truth/start", nil)
		resp, body := post(t, adm+"/admin/truth/stop", nil)
		var rep truth.Report
		if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &rep) != nil {
			t.Fatalf("stop: %d %s", resp.StatusCode, body)
		}
		b, err := os.ReadFile(p)
		var got truth.Report
		if err != nil || json.Unmarshal(b, &got) != nil || got.Window.Start != rep.Window.Start {
			t.Errorf("truth_file after a stop: %v %.200s; want the window starting %s", err, b, rep.Window.Start)
		}
		starts = append(starts, rep.Window.Start)
	}
	if starts[0] == starts[1] {
		t.Errorf("two windows started at %s; want two starts", starts[0])
	}
}
