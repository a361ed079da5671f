package machine

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// stateNames are the kernel's TCP states as /proc/net/tcp numbers them.
var stateNames = map[uint64]string{
	0x01: "ESTABLISHED", 0x02: "SYN_SENT", 0x03: "SYN_RECV", 0x04: "FIN_WAIT1",
	0x05: "FIN_WAIT2", 0x06: "TIME_WAIT", 0x07: "CLOSE", 0x08: "CLOSE_WAIT",
	0x09: "LAST_ACK", 0x0A: "LISTEN", 0x0B: "CLOSING", 0x0C: "NEW_SYN_RECV",
}

// Sockets counts the TCP sockets (IPv4 and IPv6) on one port by state, as
// netstat -ant | grep PORT would.
type Sockets struct {
	Port   int            `json:"port"`
	States map[string]int `json:"states"` // state name -> sockets; states with none are left out
	// Listen is the listening socket's queue, when the port is a local
	// port with a LISTEN socket.
	Listen *ListenQueue `json:"listen,omitempty"`
}

// ListenQueue is a listening socket's accept queue: connections the kernel
// has completed and the server has not accepted yet (rx_queue of the LISTEN
// line), and the most it holds. /proc/net/tcp does not show that limit; Go
// listens with the system's net.core.somaxconn, so Backlog is that value.
type ListenQueue struct {
	AcceptQueue int `json:"accept_queue"`
	Backlog     int `json:"backlog"` // net.core.somaxconn; 0 if unreadable
}

// LocalPort counts the sockets whose local port is port: a server's
// listening socket and its connections with clients.
func LocalPort(port int) (Sockets, error) { return procRoot("/proc").sockets(port, true, nil) }

// RemotePort counts the sockets whose remote port is port: this machine's
// client connections to a server on that port (all processes', as netstat
// shows them).
func RemotePort(port int) (Sockets, error) { return procRoot("/proc").sockets(port, false, nil) }

// OwnRemotePort is RemotePort for this process's sockets alone: its own
// connections to a server on port, without those of other programs on the
// machine (psql, another board, a test's). It matches sockets by the
// inodes of this process's open files, so it misses the connections it has
// closed: a socket in TIME_WAIT belongs to no process (its inode is 0).
// RemotePortFrom sees those.
func OwnRemotePort(port int) (Sockets, error) {
	r := procRoot("/proc")
	own, err := r.socketInodes("self")
	if err != nil {
		return Sockets{Port: port, States: map[string]int{}}, err
	}
	return r.sockets(port, false, byInode(own))
}

// RemotePortFrom is RemotePort for the sockets whose local port is in
// local: a program's connections to a server on port, in every state, the
// closed ones in TIME_WAIT included, when the program remembers the local
// ports it connected from (netstat's view of them, which matching by inode
// cannot give).
func RemotePortFrom(port int, local map[int]bool) (Sockets, error) {
	return procRoot("/proc").sockets(port, false, byLocalPort(local))
}

// byLocalPort keeps the /proc/net/tcp lines whose local port is in local.
func byLocalPort(local map[int]bool) func(f []string) bool {
	return func(f []string) bool {
		p, ok := hexPort(f[1])
		return ok && local[p]
	}
}

// byInode keeps the /proc/net/tcp lines whose inode is in own.
func byInode(own map[string]bool) func(f []string) bool {
	return func(f []string) bool { return len(f) >= 10 && own[f[9]] }
}

// hexPort returns the port of a /proc/net/tcp address ("0100007F:1538").
func hexPort(addr string) (int, bool) {
	_, h, ok := strings.Cut(addr, ":")
	if !ok {
		return 0, false
	}
	p, err := strconv.ParseUint(h, 16, 16)
	return int(p), err == nil
}

// socketInodes returns the inodes of the sockets process pid ("self" for
// this one) has open, as /proc/net/tcp writes them.
func (r procRoot) socketInodes(pid string) (map[string]bool, error) {
	dir := filepath.Join(string(r), pid, "fd")
	fds, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list open files: %w", err)
	}
	own := map[string]bool{}
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join(dir, fd.Name()))
		if err != nil {
			continue // closed since the listing
		}
		if inode, ok := strings.CutPrefix(target, "socket:["); ok {
			own[strings.TrimSuffix(inode, "]")] = true
		}
	}
	return own, nil
}

// sockets counts the sockets on port; with keep set, only the lines (split
// into fields) it keeps.
func (r procRoot) sockets(port int, local bool, keep func(f []string) bool) (Sockets, error) {
	s := Sockets{Port: port, States: map[string]int{}}
	found := false
	for _, name := range []string{"net/tcp", "net/tcp6"} {
		b, err := r.read(name)
		if err != nil {
			continue // no IPv6, for example
		}
		found = true
		if err := countSockets(b, port, local, keep, &s); err != nil {
			return s, err
		}
	}
	if !found {
		return s, fmt.Errorf("read net/tcp: no TCP socket tables under %s", string(r))
	}
	if s.Listen != nil {
		if b, err := r.read("sys/net/core/somaxconn"); err == nil {
			s.Listen.Backlog, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
	}
	return s, nil
}

// countSockets adds the lines of one /proc/net/tcp table that match port
// and, when keep is not nil, that keep keeps.
func countSockets(b []byte, port int, local bool, keep func(f []string) bool, s *Sockets) error {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Scan() // header
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 {
			continue
		}
		addr := f[1]
		if !local {
			addr = f[2]
		}
		p, ok := hexPort(addr)
		if !ok {
			return fmt.Errorf("net/tcp: address %q: want hex address:port", addr)
		}
		if p != port || keep != nil && !keep(f) {
			continue
		}
		st, err := strconv.ParseUint(f[3], 16, 8)
		if err != nil {
			return fmt.Errorf("net/tcp: state %q: %w", f[3], err)
		}
		name, ok := stateNames[st]
		if !ok {
			name = "UNKNOWN"
		}
		s.States[name]++
		if st == 0x0A && local {
			_, rx, _ := strings.Cut(f[4], ":")
			q, _ := strconv.ParseUint(rx, 16, 32)
			if s.Listen == nil {
				s.Listen = &ListenQueue{}
			}
			s.Listen.AcceptQueue += int(q)
		}
	}
	return nil
}
