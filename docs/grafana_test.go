package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"bbslab/internal/testenv"
)

// grafanaDir holds the compose file of docs/grafana.md and what it mounts.
const grafanaDir = "grafana"

// readYAML decodes a YAML file of grafanaDir into v.
func readYAML(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(grafanaDir, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// TestGrafanaCompose checks the compose file's syntax and content (there
// is no container engine here to run it): the four services, loopback
// ports, every file it mounts present in the repository, Prometheus
// scraping the board's admin port with the board's token, Grafana's data
// source on the Prometheus service and its dashboard provider on the
// folder the dashboard is mounted in.
func TestGrafanaCompose(t *testing.T) {
	type service struct {
		Image       string            `yaml:"image"`
		Command     []string          `yaml:"command"`
		Environment map[string]string `yaml:"environment"`
		Ports       []string          `yaml:"ports"`
		Volumes     []string          `yaml:"volumes"`
	}
	var c struct {
		Services map[string]service `yaml:"services"`
		Volumes  map[string]any     `yaml:"volumes"`
	}
	readYAML(t, "compose.yaml", &c)
	var names []string
	for n := range c.Services {
		names = append(names, n)
	}
	slices.Sort(names)
	if want := []string{"bbs", "grafana", "postgres", "prometheus"}; !slices.Equal(names, want) {
		t.Fatalf("compose.yaml: services %q; want %q", names, want)
	}
	mounts := map[string]string{} // container path -> host path, of files in the repository
	for name, s := range c.Services {
		for _, p := range s.Ports {
			if !strings.HasPrefix(p, "127.0.0.1:") {
				t.Errorf("compose.yaml: %s publishes %q; want loopback only (127.0.0.1:...)", name, p)
			}
		}
		for _, v := range s.Volumes {
			parts := strings.Split(v, ":")
			if len(parts) < 2 {
				t.Errorf("compose.yaml: %s volume %q; want host:container", name, v)
				continue
			}
			host := parts[0]
			if !strings.HasPrefix(host, ".") {
				if _, ok := c.Volumes[host]; !ok {
					t.Errorf("compose.yaml: %s mounts the named volume %q, which volumes does not declare", name, host)
				}
				continue
			}
			if _, err := os.Stat(filepath.Join(grafanaDir, host)); err != nil {
				t.Errorf("compose.yaml: %s mounts %s, which is not in the repository: %v", name, host, err)
			}
			mounts[parts[1]] = host
		}
	}

	// The board: built from this checkout, its admin listener on 6060
	// with a token, on the postgres service.
	bbs := c.Services["bbs"]
	if mounts["/src"] != "../.." || !slices.Contains(bbs.Command, "./cmd/bbs") {
		t.Errorf("compose.yaml: bbs mounts %q at /src and runs %q; want the repository (../..) and go run ./cmd/bbs", mounts["/src"], bbs.Command)
	}
	if i := slices.Index(bbs.Command, "-admin-addr"); i < 0 || i+1 >= len(bbs.Command) || bbs.Command[i+1] != "0.0.0.0:6060" {
		t.Errorf("compose.yaml: bbs command %q; want -admin-addr 0.0.0.0:6060", bbs.Command)
	}
	token := bbs.Environment["BBS_ADMIN_TOKEN"]
	if token == "" || !strings.Contains(bbs.Environment["BBS_DSN"], "@postgres:5432/") {
		t.Errorf("compose.yaml: bbs environment %v; want BBS_ADMIN_TOKEN and BBS_DSN on postgres:5432", bbs.Environment)
	}

	// Prometheus scrapes it with that token.
	if mounts["/etc/prometheus/prometheus.yml"] != "./prometheus.yml" {
		t.Errorf("compose.yaml: prometheus mounts %q as its config; want ./prometheus.yml", mounts["/etc/prometheus/prometheus.yml"])
	}
	var p struct {
		ScrapeConfigs []struct {
			JobName       string `yaml:"job_name"`
			MetricsPath   string `yaml:"metrics_path"`
			Authorization struct {
				Type        string `yaml:"type"`
				Credentials string `yaml:"credentials"`
			} `yaml:"authorization"`
			StaticConfigs []struct {
				Targets []string `yaml:"targets"`
			} `yaml:"static_configs"`
		} `yaml:"scrape_configs"`
	}
	readYAML(t, "prometheus.yml", &p)
	if len(p.ScrapeConfigs) != 1 || len(p.ScrapeConfigs[0].StaticConfigs) != 1 {
		t.Fatalf("prometheus.yml: %+v; want one scrape config with one static config", p.ScrapeConfigs)
	}
	sc := p.ScrapeConfigs[0]
	if sc.MetricsPath != "/metrics" || !slices.Equal(sc.StaticConfigs[0].Targets, []string{"bbs:6060"}) ||
		sc.Authorization.Type != "Bearer" || sc.Authorization.Credentials != token {
		t.Errorf("prometheus.yml: %+v; want /metrics on bbs:6060 with the bearer token %q of compose.yaml", sc, token)
	}

	// Grafana: the data source is the Prometheus service, the dashboard
	// provider reads the folder the dashboard is mounted in.
	var ds struct {
		Datasources []struct {
			Type      string `yaml:"type"`
			URL       string `yaml:"url"`
			IsDefault bool   `yaml:"isDefault"`
		} `yaml:"datasources"`
	}
	readYAML(t, "provisioning/datasources/prometheus.yaml", &ds)
	if len(ds.Datasources) != 1 || ds.Datasources[0].Type != "prometheus" || ds.Datasources[0].URL != "http://prometheus:9090" || !ds.Datasources[0].IsDefault {
		t.Errorf("provisioning/datasources/prometheus.yaml: %+v; want one default prometheus data source at http://prometheus:9090", ds.Datasources)
	}
	var dp struct {
		Providers []struct {
			Type    string `yaml:"type"`
			Options struct {
				Path string `yaml:"path"`
			} `yaml:"options"`
		} `yaml:"providers"`
	}
	readYAML(t, "provisioning/dashboards/bbs.yaml", &dp)
	var dashboard string
	for container, host := range mounts {
		if host == "./bbs-dashboard.json" {
			dashboard = container
		}
	}
	if len(dp.Providers) != 1 || dp.Providers[0].Type != "file" || dashboard == "" || filepath.Dir(dashboard) != dp.Providers[0].Options.Path {
		t.Errorf("provisioning/dashboards/bbs.yaml: %+v; want a file provider on the folder compose.yaml mounts bbs-dashboard.json in (%q)", dp.Providers, dashboard)
	}
	if mounts["/etc/grafana/provisioning/datasources"] != "./provisioning/datasources" || mounts["/etc/grafana/provisioning/dashboards"] != "./provisioning/dashboards" {
		t.Errorf("compose.yaml: grafana's provisioning mounts %v; want ./provisioning/datasources and ./provisioning/dashboards", mounts)
	}
	for name, port := range map[string]string{"bbs": "8080", "prometheus": "9090", "grafana": "3000"} {
		found := false
		for _, p := range c.Services[name].Ports {
			host, _, _ := strings.Cut(strings.TrimPrefix(p, "127.0.0.1:"), ":")
			found = found || host == port
		}
		if !found {
			t.Errorf("compose.yaml: %s ports %q; want 127.0.0.1:%s published", name, c.Services[name].Ports, port)
		}
	}
}

// TestGrafanaPrometheusConfig runs promtool check config on
// prometheus.yml.
func TestGrafanaPrometheusConfig(t *testing.T) {
	path, err := exec.LookPath("promtool")
	testenv.Need(t, err == nil, "promtool is not on PATH: skipping promtool check config (Debian: apt-get install prometheus)")
	out, err := exec.Command(path, "check", "config", filepath.Join(grafanaDir, "prometheus.yml")).CombinedOutput()
	if err != nil {
		t.Errorf("promtool check config prometheus.yml: %v\n%s", err, out)
	}
}
