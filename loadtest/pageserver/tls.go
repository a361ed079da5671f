package pageserver

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"time"
)

// Listen listens on addr for Serve, with useTLS behind a fresh self-signed
// certificate, and returns its scheme.
func Listen(addr string, useTLS bool) (ln net.Listener, scheme string, err error) {
	if ln, err = net.Listen("tcp", addr); err != nil {
		return nil, "", fmt.Errorf("listen %s: %w", addr, err)
	}
	if !useTLS {
		return ln, "http", nil
	}
	conf, err := selfSigned()
	if err != nil {
		ln.Close()
		return nil, "", err
	}
	return tls.NewListener(ln, conf), "https", nil
}

// selfSigned returns a TLS configuration with a fresh self-signed
// certificate for 127.0.0.1, ::1 and localhost, valid for a day.
func selfSigned() (*tls.Config, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("tls key: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(now.UnixNano()),
		Subject:      pkix.Name{CommonName: "loadtest pageserver"},
		NotBefore:    now.Add(-time.Minute),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames:     []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("tls certificate: %w", err)
	}
	return &tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}},
		NextProtos:   []string{"http/1.1"},
	}, nil
}
