package driverkit

import (
	"net"
	"testing"
	"time"
)

func TestPortSet(t *testing.T) {
	var p PortSet
	p.Record(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40001})
	p.Record(&net.UnixAddr{Name: "/tmp/.s.PGSQL.5432", Net: "unix"})
	p.mu.Lock()
	p.seen[40002] = time.Now().Add(-portMemory - time.Second) // used long ago
	p.pruned = time.Time{}                                    // due for pruning
	p.mu.Unlock()
	if got := p.Ports(); len(got) != 1 || !got[40001] {
		t.Errorf("ports() = %v; want just 40001 (40002 is older than portMemory, a Unix socket has no port)", got)
	}
	p.Record(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40003})
	if _, kept := p.seen[40002]; kept || len(p.seen) != 2 {
		t.Errorf("after a recording the set holds %v; want 40002 pruned", p.seen)
	}
}
