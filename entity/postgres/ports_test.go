package postgres

import (
	"context"
	"net"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"bbslab/entity"
	"bbslab/entity/storetest"
	"bbslab/machine"
)

// TestPostgresOwnSockets opens a PostgreSQL store without a pool and checks
// that its closed connections, in TIME_WAIT and owned by no process, are
// counted as its own by their local ports, while a connection this test
// holds to the same server is not.
func TestPostgresOwnSockets(t *testing.T) {
	dsn := os.Getenv("BBS_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("BBS_TEST_POSTGRES_DSN not set: skipping (e.g. postgres://root@127.0.0.1:5432/test?sslmode=disable)")
	}
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("no /proc/net/tcp: not Linux")
	}
	port, ok := ServerPort(dsn)
	if !ok {
		t.Skipf("BBS_TEST_POSTGRES_DSN does not name a TCP port")
	}
	ctx := context.Background()
	// Connected first and held, so that no closed connection of the store
	// can leave its local port to this one.
	foreign, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer foreign.Close(ctx)
	foreignPort := foreign.PgConn().Conn().LocalAddr().(*net.TCPAddr).Port
	ownBefore, err := machine.OwnRemotePort(port)
	if err != nil {
		t.Fatal(err)
	}

	schema := testSchema(t, dsn, "bbs_test")
	st, err := Open(ctx, entity.Options{Driver: "postgres", DSN: dsn, Schema: schema, Pool: 2, PoolMode: entity.PoolNone, SeedPosts: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const acquires = 5
	for range acquires {
		c := storetest.Acquire(t, st)
		if _, err := c.Newest(ctx, 3); err != nil {
			t.Fatalf("Newest(3): %v", err)
		}
		c.Release()
	}
	ports := st.(entity.SocketOwner).LocalPorts()
	if len(ports) < acquires || ports[foreignPort] {
		t.Fatalf("LocalPorts() = %v; want at least the %d acquires' ports and not the test's own %d", ports, acquires, foreignPort)
	}
	got, err := machine.RemotePortFrom(port, ports)
	if err != nil {
		t.Fatal(err)
	}
	closed := 0
	for state, n := range got.States {
		if state != "ESTABLISHED" {
			closed += n
		}
	}
	t.Logf("the store's sockets to port %d after %d acquires without a pool: %v", port, acquires, got.States)
	// Another program connecting to the server meanwhile (a test package
	// running beside this one) may take a local port of the store's
	// closed connections: Linux reuses a TIME_WAIT port for a new loopback
	// connection (net.ipv4.tcp_tw_reuse = 2, the default). Its connection
	// shows ESTABLISHED under the store's port; that this process holds no
	// more connections than before the store opened says the store's are
	// closed.
	ownAfter, err := machine.OwnRemotePort(port)
	if err != nil {
		t.Fatal(err)
	}
	if n, was := ownAfter.States["ESTABLISHED"], ownBefore.States["ESTABLISHED"]; n != was {
		t.Errorf("this process holds %d connections to port %d, %d before the store opened; want the store's %d closed", n, port, was, acquires)
	}
	if got.States["TIME_WAIT"] < 1 || closed+got.States["ESTABLISHED"] < acquires {
		t.Errorf("RemotePortFrom(%d, the store's ports) = %v; want the %d closed connections, TIME_WAIT among them (or a port taken again by another program)", port, got.States, acquires)
	}
}
