package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
)

// startEnv runs the board like start, with an environment and its stderr
// (the log) kept; it returns the admin URL, the log and a stop function.
func startEnv(t *testing.T, env map[string]string, args ...string) (admin string, log *strings.Builder, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	log = &strings.Builder{}
	done := make(chan error, 1)
	args = append([]string{"-addr", "127.0.0.1:0", "-admin-addr", "127.0.0.1:0"}, args...)
	go func() {
		err := run(ctx, args, func(k string) string { return env[k] }, pw, &syncWriter{w: log})
		pw.Close()
		done <- err
	}()
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "admin: "); ok {
			admin = strings.TrimSuffix(u, "/")
			break
		}
	}
	go io.Copy(io.Discard, pr)
	if admin == "" {
		cancel()
		t.Fatalf("run did not print its admin URL: %v", <-done)
	}
	return admin, log, func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}
}

// getAuth GETs admin+path with the admin token and returns the body.
func getAuth(t *testing.T, u, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestSecretsStayHidden starts the board with the admin token on the
// command line, and then from BBS_ADMIN_TOKEN, and checks that the token
// works but is shown nowhere: not in /debug/pprof/cmdline, /admin/stats or
// the log.
func TestSecretsStayHidden(t *testing.T) {
	db := filepath.Join(t.TempDir(), "bbs.db")
	const token = "tok3n-never-shown"
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
	}{
		{"flag", nil, []string{"-dsn", db, "-seed-posts", "5", "-admin-token", token}},
		{"env", map[string]string{"BBS_ADMIN_TOKEN": token, "BBS_DSN": db}, []string{"-seed-posts", "5"}},
	} {
		admin, log, stop := startEnv(t, tc.env, tc.args...)
		if code, _ := getAuth(t, admin+"/admin/stats", ""); code != 401 {
			t.Errorf("%s: /admin/stats without the token: %d; want 401", tc.name, code)
		}
		code, cmdline := getAuth(t, admin+"/debug/pprof/cmdline", token)
		if code != 200 || strings.Contains(cmdline, token) {
			t.Errorf("%s: /debug/pprof/cmdline: %d %q; want 200 without the token", tc.name, code, cmdline)
		}
		if tc.name == "flag" && !strings.Contains(cmdline, "-admin-token\x00xxxxx") {
			t.Errorf("%s: /debug/pprof/cmdline = %q; want -admin-token xxxxx", tc.name, cmdline)
		}
		_, body := getAuth(t, admin+"/admin/stats", token)
		var st struct {
			Config map[string]any `json:"config"`
		}
		if err := json.Unmarshal([]byte(body), &st); err != nil {
			t.Fatalf("%s: /admin/stats: %v", tc.name, err)
		}
		if st.Config["admin_token"] != "set" || st.Config["dsn"] != db || st.Config["seed_posts"] != 5.0 || strings.Contains(body, token) {
			t.Errorf("%s: /admin/stats config = %v; want admin_token \"set\", dsn %q, seed_posts 5 and no token", tc.name, st.Config, db)
		}
		stop()
		if strings.Contains(log.String(), token) {
			t.Errorf("%s: the log holds the token:\n%s", tc.name, log)
		}
	}
}

// TestDSNPasswordHidden starts the board on PostgreSQL with a password in
// the DSN (the test server trusts, so any password is accepted), from -dsn
// and from BBS_DSN, and checks the password is shown nowhere.
func TestDSNPasswordHidden(t *testing.T) {
	dsn, _, _ := pgDSN(t, "secret")
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	const password = "pa55-never-shown"
	u.User = url.UserPassword(u.User.Username(), password)
	withPw := u.String()
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
	}{
		{"flag", nil, []string{"-db", "postgres", "-dsn", withPw, "-pool", "2", "-seed-posts", "5"}},
		{"env", map[string]string{"BBS_DSN": withPw}, []string{"-db", "postgres", "-pool", "2", "-seed-posts", "5"}},
	} {
		admin, log, stop := startEnv(t, tc.env, tc.args...)
		_, cmdline := getAuth(t, admin+"/debug/pprof/cmdline", "")
		_, stats := getAuth(t, admin+"/admin/stats", "")
		stop()
		for what, text := range map[string]string{"/debug/pprof/cmdline": cmdline, "/admin/stats": stats, "the log": log.String()} {
			if strings.Contains(text, password) {
				t.Errorf("%s: %s holds the DSN password:\n%s", tc.name, what, text)
			}
		}
		var st struct {
			Config map[string]any `json:"config"`
		}
		if err := json.Unmarshal([]byte(stats), &st); err != nil {
			t.Fatalf("%s: /admin/stats: %v", tc.name, err)
		}
		if want := strings.Replace(withPw, password, "xxxxx", 1); st.Config["dsn"] != want {
			t.Errorf("%s: /admin/stats config.dsn = %v; want %q", tc.name, st.Config["dsn"], want)
		}
	}
}
