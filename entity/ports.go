package entity

import (
	"net"
	"sync"
	"time"
)

// A SocketOwner is a Store that reaches its database over TCP and
// remembers the local ports its connections came from, so that its own
// sockets can be told from other programs' in /proc/net/tcp also after
// they are closed: a closed connection lingers in TIME_WAIT for a minute on
// Linux with inode 0, owned by no process, and the no-pool case makes many.
type SocketOwner interface {
	// LocalPorts returns the local ports of the TCP connections the store
	// opened in the last PortMemory, whether still open or not.
	LocalPorts() map[int]bool
}

// PortMemory is how long a SocketOwner remembers a local port: longer than
// TIME_WAIT (60 s on Linux) with room to spare.
const PortMemory = 3 * time.Minute

// portPrune is how often a recording drops the ports older than
// PortMemory, which bounds the set to the ports used in the last
// PortMemory + portPrune.
const portPrune = 10 * time.Second

// A PortSet is the local ports of a store's connections, each with the time
// it was last used.
type PortSet struct {
	mu     sync.Mutex
	seen   map[int]time.Time
	pruned time.Time
}

// Record remembers the local port of a connection just dialled.
func (p *PortSet) Record(local net.Addr) {
	a, ok := local.(*net.TCPAddr)
	if !ok {
		return // a Unix socket: nothing in /proc/net/tcp
	}
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.seen == nil {
		p.seen = map[int]time.Time{}
	}
	p.seen[a.Port] = now
	if now.Sub(p.pruned) >= portPrune {
		p.pruned = now
		for port, t := range p.seen {
			if now.Sub(t) > PortMemory {
				delete(p.seen, port)
			}
		}
	}
}

// Ports returns the ports used in the last PortMemory.
func (p *PortSet) Ports() map[int]bool {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[int]bool, len(p.seen))
	for port, t := range p.seen {
		if now.Sub(t) <= PortMemory {
			out[port] = true
		}
	}
	return out
}
