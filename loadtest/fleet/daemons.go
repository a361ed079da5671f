package fleet

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Binary finds HAProxy's or PgBouncer's program in PATH or /usr/sbin (Debian).
func Binary(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	if p, err := exec.LookPath(filepath.Join("/usr/sbin", name)); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%s is not installed (Debian and Ubuntu: apt-get install %s, then stop the service it starts: service %s stop; see docs/scale-out.md)", name, name, name)
}

// startPgBouncer writes PgBouncer's files, starts it and waits till it listens.
func (f *Fleet) startPgBouncer(ctx context.Context) error {
	bin, err := Binary("pgbouncer")
	if err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	s := f.spec.PgBouncer
	statsPassword := randomHex(16)
	users, err := RenderUserlist([]Login{{f.Role.Name, f.Role.Password}, {StatsUser, statsPassword}})
	if err != nil {
		return err
	}
	authFile, err := writeFile(f.spec.WorkDir, "userlist.txt", users)
	if err != nil {
		return err
	}
	ini, err := PgBouncerConfig{
		ListenHost: "127.0.0.1", ListenPort: port,
		ServerHost: f.Role.Host, ServerPort: f.Role.Port, Database: f.Role.Name, User: f.Role.Name,
		Mode: s.Mode, PoolSize: s.PoolSize, MaxClientConn: 1000,
		AuthFile: authFile, StatsUser: StatsUser,
	}.Render()
	if err != nil {
		return err
	}
	iniPath, err := writeFile(f.spec.WorkDir, "pgbouncer.ini", ini)
	if err != nil {
		return err
	}
	argv := []string{bin, iniPath}
	if os.Geteuid() == 0 {
		// PgBouncer will not run as root.
		argv = []string{bin, "-u", "nobody", iniPath}
	}
	cpus := f.spec.CPUs
	if s.CPUs != nil {
		cpus = s.CPUs
	}
	p, err := f.start("pgbouncer", argv, nil, f.spec.WorkDir, "pgbouncer.log", cpus)
	if err != nil {
		return err
	}
	if err := p.waitFor(ctx, f.spec.StartTimeout, "listening on "+hostPort(port), listening(hostPort(port))); err != nil {
		return err
	}
	admin := (&url.URL{Scheme: "postgres", User: url.UserPassword(StatsUser, statsPassword), Host: hostPort(port),
		Path: "/pgbouncer", RawQuery: "sslmode=disable&default_query_exec_mode=simple_protocol"}).String()
	f.PgBouncer = &PgBouncer{Port: port, Mode: s.Mode, PoolSize: s.PoolSize, AdminDSN: admin, Pid: p.Pid()}
	return nil
}

// startHAProxy starts HAProxy and waits until its exporter has every replica UP.
func (f *Fleet) startHAProxy(ctx context.Context) error {
	bin, err := Binary("haproxy")
	if err != nil {
		return err
	}
	port, err := portOr(f.spec.Port)
	if err != nil {
		return err
	}
	stats, err := portOr(f.spec.MetricsPort)
	if err != nil {
		return err
	}
	c := HAProxyConfig{Addr: hostPort(port), StatsAddr: hostPort(stats), Balance: f.spec.Balance, CheckPath: f.spec.Ready, ServerMaxConn: f.spec.ServerMaxConn}
	for _, r := range f.Replicas {
		c.Servers = append(c.Servers, HAProxyServer{Name: r.Name, Addr: hostPort(r.Port), CheckPort: r.AdminPort})
	}
	cfg, err := c.Render()
	if err != nil {
		return err
	}
	path, err := writeFile(f.spec.WorkDir, "haproxy.cfg", cfg)
	if err != nil {
		return err
	}
	p, err := f.start("haproxy", []string{bin, "-db", "-f", path}, nil, f.spec.WorkDir, "haproxy.log", f.spec.CPUs)
	if err != nil {
		return err
	}
	f.URL, f.MetricsURL = "http://"+hostPort(port), "http://"+hostPort(stats)+"/metrics"
	return p.waitFor(ctx, f.spec.StartTimeout, "every replica UP at "+f.MetricsURL, func(ctx context.Context) error {
		ss, err := Scrape(ctx, f.MetricsURL)
		if err != nil {
			return err
		}
		if up := int(Sum(ss, "haproxy_server_status", map[string]string{"proxy": "boards", "state": "UP"})); up < len(f.Replicas) {
			return fmt.Errorf("%d of %d replicas UP", up, len(f.Replicas))
		}
		return nil
	})
}

// A Sample is one series of Prometheus's text format.
type Sample struct {
	Name   string
	Labels map[string]string
	Value  float64
}

// Scrape reads url's Prometheus text (format 0.0.4, as HAProxy writes it).
func Scrape(ctx context.Context, url string) ([]Sample, error) {
	b, err := Get(ctx, httpClient, url, "", 32<<20)
	if err != nil {
		return nil, err
	}
	ss, err := ParseText(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	return ss, nil
}

// ParseText reads a text exposition: a sample per counter, gauge or untyped series.
func ParseText(r io.Reader) ([]Sample, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, err
	}
	var out []Sample
	for name, mf := range fams {
		for _, m := range mf.GetMetric() {
			s := Sample{Name: name, Labels: map[string]string{}}
			for _, l := range m.GetLabel() {
				s.Labels[l.GetName()] = l.GetValue()
			}
			// A series has one of the three; the others read 0.
			s.Value = m.GetCounter().GetValue() + m.GetGauge().GetValue() + m.GetUntyped().GetValue()
			out = append(out, s)
		}
	}
	return out, nil
}

// Sum adds the values of the samples named name whose labels include match.
func Sum(ss []Sample, name string, match map[string]string) float64 {
	var t float64
	for _, s := range ss {
		if s.Name != name {
			continue
		}
		ok := true
		for k, v := range match {
			ok = ok && s.Labels[k] == v
		}
		if ok {
			t += s.Value
		}
	}
	return t
}
