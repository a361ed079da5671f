package entity

// A SocketOwner is a Store that reaches its database over TCP and
// remembers the local ports its connections came from, so that its own
// sockets can be told from other programs' in /proc/net/tcp also after
// they are closed: a closed connection lingers in TIME_WAIT for a minute on
// Linux with inode 0, owned by no process, and the no-pool case makes many.
type SocketOwner interface {
	// LocalPorts returns the local ports of the TCP connections the store
	// opened in the last few minutes (longer than TIME_WAIT), whether
	// still open or not.
	LocalPorts() map[int]bool
}
