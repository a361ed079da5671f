package entity

import (
	"context"
	"fmt"
	"net"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"bbslab/machine"
)

func TestPortSet(t *testing.T) {
	var p portSet
	p.record(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40001})
	p.record(&net.UnixAddr{Name: "/tmp/.s.PGSQL.5432", Net: "unix"})
	p.mu.Lock()
	p.seen[40002] = time.Now().Add(-PortMemory - time.Second) // used long ago
	p.pruned = time.Time{}                                    // due for pruning
	p.mu.Unlock()
	if got := p.ports(); len(got) != 1 || !got[40001] {
		t.Errorf("ports() = %v; want just 40001 (40002 is older than PortMemory, a Unix socket has no port)", got)
	}
	p.record(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40003})
	if _, kept := p.seen[40002]; kept || len(p.seen) != 2 {
		t.Errorf("after a recording the set holds %v; want 40002 pruned", p.seen)
	}
}

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
	port, ok := ServerPort("postgres", dsn)
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

	schema := fmt.Sprintf("bbs_test_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9, schemaSeq.Add(1))
	t.Cleanup(func() { dropSchema(t, dsn, schema) })
	st, err := Open(ctx, Options{Driver: "postgres", DSN: dsn, Schema: schema, Pool: 2, PoolMode: PoolNone, SeedPosts: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const acquires = 5
	for range acquires {
		c := acquire(t, st)
		if _, err := c.Newest(ctx, 3); err != nil {
			t.Fatalf("Newest(3): %v", err)
		}
		c.Release()
	}
	ports := st.(SocketOwner).LocalPorts()
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
	if got.States["ESTABLISHED"] != 0 || got.States["TIME_WAIT"] < 1 || closed < acquires {
		t.Errorf("RemotePortFrom(%d, the store's ports) = %v; want no ESTABLISHED (the test's connection is not the store's) and the %d closed connections, TIME_WAIT among them", port, got.States, acquires)
	}
}
