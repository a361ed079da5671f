package main

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestHTTPSFlags runs the command against an https:// server with a
// self-signed certificate: refused without -insecure, naming the
// certificate problem; with it, -H, -body-file and -method reach the
// server, and the JSON has the status codes.
func TestHTTPSFlags(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.Method+" "+r.Host+" "+r.Header.Get("Authorization")+" "+r.Header.Get("Content-Type")+" "+string(b))
		mu.Unlock()
		w.Write([]byte("<html>ok</html>"))
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is expected
	srv.StartTLS()
	t.Cleanup(srv.Close)

	code, _, stderr := runCmd(context.Background(), "run", "-url", srv.URL+"/", "-requests", "3", "-clients", "1", "-progress", "off")
	if code == 0 || !strings.Contains(stderr, "x509: certificate signed by unknown authority") || !strings.Contains(stderr, "-insecure") {
		t.Errorf("run https without -insecure = exit %d, stderr %q; want a failure naming the certificate problem and -insecure", code, stderr)
	}

	dir := t.TempDir()
	bodyFile, out := filepath.Join(dir, "body.json"), filepath.Join(dir, "r.json")
	os.WriteFile(bodyFile, []byte(`{"m":"{{seq}}"}`), 0o644)
	code, stdout, stderr := runCmd(context.Background(), "run", "-url", srv.URL+"/api", "-insecure", "-method", "PUT", "-body-file", bodyFile,
		"-H", "Authorization: Bearer t{{client}}", "-H", "Content-Type: application/json", "-H", "Host: board.example",
		"-requests", "4", "-clients", "1", "-progress", "off", "-out", out)
	if code != 0 {
		t.Fatalf("run https -insecure = exit %d, stderr %q", code, stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 4 || got[0] != `PUT board.example Bearer t1 application/json {"m":"1"}` {
		t.Errorf("server saw %q; want 4 of PUT board.example Bearer t1 application/json {\"m\":\"1\"}..", got)
	}
	if !strings.Contains(stdout, " 200:4\n") {
		t.Errorf("summary lacks the status codes 200:4:\n%s", stdout)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Schema   int `json:"schema"`
		Settings struct {
			Insecure  bool    `json:"insecure"`
			TimeoutMs float64 `json:"timeout_ms"`
			Requests  []struct {
				Body    string            `json:"body"`
				Headers map[string]string `json:"headers"`
			} `json:"requests"`
		} `json:"settings"`
		Total struct {
			StatusCodes map[string]int64 `json:"status_codes"`
			P95Ms       float64          `json:"p95_ms"`
		} `json:"total"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if res.Schema != 2 || !res.Settings.Insecure || res.Settings.TimeoutMs != 10000 || res.Total.StatusCodes["200"] != 4 || res.Total.P95Ms <= 0 ||
		len(res.Settings.Requests) != 1 || res.Settings.Requests[0].Body != `{"m":"{{seq}}"}` || res.Settings.Requests[0].Headers["Host"] != "board.example" {
		t.Errorf("result JSON = %+v; want schema 2, insecure, timeout_ms 10000, status 200:4, a p95, the body and headers", res)
	}
}

// TestSettingsFlagsReachTheResult gives every flag bound from
// loadtest.Settings' tags a value other than its default and reads the
// values back from the result's JSON: flag name, field and JSON name come
// from one declaration.
func TestSettingsFlagsReachTheResult(t *testing.T) {
	srv := server(t)
	out := filepath.Join(t.TempDir(), "r.json")
	code, _, stderr := runCmd(context.Background(), "run", "-url", srv.URL+"/", "-clients", "1", "-progress", "off", "-out", out,
		"-name", "flags", "-requests", "5", "-duration", "20s", "-max-duration", "30s", "-warmup", "10ms", "-rampup", "5ms",
		"-model", "rate", "-think", "2ms", "-think-dev", "1ms", "-timer", "uniform", "-timer-slack", "100us", "-timeout", "3s",
		"-drain", "2s", "-keepalive=false", "-insecure", "-seed", "42")
	if code != 0 {
		t.Fatalf("run = exit %d, stderr %q", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Settings map[string]any `json:"settings"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"name": "flags", "max_requests": 5.0, "duration_ms": 20000.0, "max_duration_ms": 30000.0, "warmup_ms": 10.0,
		"rampup_ms": 5.0, "model": "rate", "think_ms": 2.0, "think_dev_ms": 1.0, "timer": "uniform", "timer_slack_ms": 0.1,
		"timeout_ms": 3000.0, "drain_ms": 2000.0, "disable_keepalive": true, "insecure": true, "seed": 42.0}
	for k, v := range want {
		if res.Settings[k] != v {
			t.Errorf("settings %s = %v; want %v (all: %v)", k, res.Settings[k], v, res.Settings)
		}
	}
}
