package contract_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"bbslab/bbs"
	"bbslab/entity"
	"bbslab/entity/open"
	"bbslab/loadtest/contract"
	"bbslab/machine"
)

// TestDistanceOnTheRealBoard reads and sets the statements' wait through
// the real admin handler over a store whose distance is adjustable, as
// cmd/bbs opens it.
func TestDistanceOnTheRealBoard(t *testing.T) {
	ctx := context.Background()
	st, err := open.Store(ctx, entity.Options{Driver: "sqlite", DSN: filepath.Join(t.TempDir(), "bbs.db"), Pool: 2,
		Distance: entity.Distance{Adjustable: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := bbs.New(bbs.Options{Store: st, DBName: "sqlite", Machine: machine.NewSampler()})
	adm := httptest.NewServer(s.AdminHandler())
	t.Cleanup(adm.Close)

	if d, err := contract.Distance(ctx, adm.URL); err != nil || d != 0 {
		t.Fatalf("Distance = %v, %v; want 0s (none set)", d, err)
	}
	if d, err := contract.SetDistance(ctx, adm.URL+"/", 1500*time.Microsecond); err != nil || d != 1500*time.Microsecond {
		t.Fatalf("SetDistance(1.5ms) = %v, %v; want 1.5ms in force", d, err)
	}
	if d, err := contract.Distance(ctx, adm.URL); err != nil || d != 1500*time.Microsecond {
		t.Errorf("Distance after SetDistance(1.5ms) = %v, %v; want 1.5ms", d, err)
	}
}

// TestDistanceErrors checks that the errors say what is wrong: a board
// whose store has no distance to set, a server without the endpoint, and
// no server at all.
func TestDistanceErrors(t *testing.T) {
	ctx := context.Background()
	b := newBoard(t, nil) // its store is opened without an adjustable distance
	closed := httptest.NewServer(nil)
	closed.Close()
	for _, tt := range []struct{ admin, want string }{
		{b.adm.URL, "no database at a distance"},
		{b.pub.URL, "no /admin/distance here"},
		{closed.URL, "does not answer"},
	} {
		if _, err := contract.SetDistance(ctx, tt.admin, time.Millisecond); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("SetDistance(%s) = %v; want an error that says %q", tt.admin, err, tt.want)
		}
	}
}
