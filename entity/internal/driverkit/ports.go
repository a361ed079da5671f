package driverkit

import (
	"net"
	"sync"
	"time"
)

// portMemory is how long a PortSet remembers a local port, and so how far
// back an entity.SocketOwner's LocalPorts reach: longer than TIME_WAIT (60 s
// on Linux) with room to spare.
const portMemory = 3 * time.Minute

// portPrune is how often a recording drops the ports older than
// portMemory, which bounds the set to the ports used in the last
// portMemory + portPrune.
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
			if now.Sub(t) > portMemory {
				delete(p.seen, port)
			}
		}
	}
}

// Ports returns the ports used in the last portMemory.
func (p *PortSet) Ports() map[int]bool {
	now := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[int]bool, len(p.seen))
	for port, t := range p.seen {
		if now.Sub(t) <= portMemory {
			out[port] = true
		}
	}
	return out
}
