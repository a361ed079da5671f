package loadtest

import (
	"context"
	"crypto/tls"
	"errors"
	"time"
)

// setTLS sets a TLS config per server name and checks certificates unless insecure.
func setTLS(ctx context.Context, reqs []*compiled, insecure bool, timeout time.Duration) error {
	cache := tls.NewLRUClientSessionCache(0)
	confs := map[string]*tls.Config{}
	checked := map[string]bool{}
	for _, c := range reqs {
		if !c.tls {
			continue
		}
		conf := confs[c.serverName]
		if conf == nil {
			conf = &tls.Config{ServerName: c.serverName, InsecureSkipVerify: insecure,
				ClientSessionCache: cache, NextProtos: []string{"http/1.1"}}
			confs[c.serverName] = conf
		}
		c.tlsConf = conf
		if insecure || checked[c.addr] {
			continue
		}
		checked[c.addr] = true
		if err := checkCertificate(ctx, c.addr, conf, timeout); err != nil {
			return err
		}
	}
	return nil
}

func checkCertificate(ctx context.Context, addr string, conf *tls.Config, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	d := tls.Dialer{Config: conf.Clone()}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err == nil {
		nc.Close()
		return nil
	}
	var cv *tls.CertificateVerificationError
	if errors.As(err, &cv) {
		return tlsError(addr, err)
	}
	return nil // the run counts other failures
}
