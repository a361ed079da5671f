package feed

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"bbslab/internal/cli"
	"bbslab/loadtest"
)

// TestDashboard serves a dashboard on a free port, feeds it one step and
// stops it: the page answers while it serves, the hub ends with the step
// and the end, and the port is closed afterwards.
func TestDashboard(t *testing.T) {
	d, err := Serve(context.Background(), "127.0.0.1:0")
	if err != nil {
		t.Fatalf("Serve(127.0.0.1:0) = %v", err)
	}
	if !strings.HasPrefix(d.URL, "http://127.0.0.1:") {
		t.Errorf("URL = %q; want a loopback http URL", d.URL)
	}
	resp, err := http.Get(d.URL)
	if err != nil {
		t.Fatalf("GET %s: %v", d.URL, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(body) == 0 {
		t.Errorf("GET %s = %s, %d bytes; want 200 and the page", d.URL, resp.Status, len(body))
	}
	f := d.NewFeed("test run")
	if d.Feed != f {
		t.Errorf("NewFeed did not set Dashboard.Feed")
	}
	f.Begin(Position{Run: "test run", Step: 1, Steps: 1, Clients: 3})
	f.Step(StepOf("test run", 3, loadtest.Stats{Clients: 3, Requests: 30}), nil)
	var warn strings.Builder
	d.Stop(&warn)
	if warn.Len() > 0 {
		t.Errorf("Stop wrote %q; want no warning", warn.String())
	}
	frames, err := d.Hub.Frames()
	if err != nil {
		t.Fatalf("Frames() = %v", err)
	}
	if n := len(frames); n < 2 || frames[n-1].Summary == nil || !frames[n-1].Done {
		t.Errorf("frames after Stop = %+v; want the step, then the end with its summary", frames)
	}
	if _, err := http.Get(d.URL); err == nil {
		t.Errorf("GET %s after Stop succeeded; want the port closed", d.URL)
	}
}

// TestDashboardRefusesRemote checks that a non-loopback address is
// refused before anything listens.
func TestDashboardRefusesRemote(t *testing.T) {
	if d, err := Serve(context.Background(), "0.0.0.0:0"); err == nil {
		d.Stop(io.Discard)
		t.Errorf("Serve(0.0.0.0:0) succeeded; want an error: the page has no authentication")
	}
}

// TestStart checks a -live flag's dashboard: none for "" and "off" (and
// stopping none is safe), the URL printed, asking for Japanese with lang
// ja, and a remote address a usage error naming -live.
func TestStart(t *testing.T) {
	for _, addr := range []string{"", "off"} {
		var out strings.Builder
		d, err := Start(context.Background(), addr, "", &out)
		if d != nil || err != nil || out.Len() > 0 {
			t.Errorf("Start(%q) = %v, %v, printed %q; want none", addr, d, err, out.String())
		}
		d.Stop(&out)
		if out.Len() > 0 {
			t.Errorf("Stop of none wrote %q", out.String())
		}
	}
	var out strings.Builder
	d, err := Start(context.Background(), "127.0.0.1:0", "ja", &out)
	if err != nil {
		t.Fatalf("Start(127.0.0.1:0) = %v", err)
	}
	if want := "live: " + d.URL + "?lang=ja\n"; out.String() != want {
		t.Errorf("Start printed %q; want %q", out.String(), want)
	}
	d.Stop(&out)
	d, err = Start(context.Background(), "0.0.0.0:0", "", &out)
	if d != nil || err == nil || !strings.HasPrefix(err.Error(), "-live: ") || cli.ExitCode(err) != cli.ExitUsage {
		t.Errorf("Start(0.0.0.0:0) = %v, %v; want a usage error naming -live", d, err)
	}
}
