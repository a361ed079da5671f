package commands_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"bbslab/commands"
	"bbslab/entity"
	"bbslab/entity/fake"
)

// timedStore hands out Conns whose figures are known: each acquire waited
// acquire, each statement took sql of which net on the network. After
// okAcquires acquires, Acquire fails with an *entity.AcquireError that
// waited failWait.
type timedStore struct {
	*fake.Store
	acquire, sql, net, failWait time.Duration
	okAcquires                  int
}

func (s *timedStore) Acquire(ctx context.Context) (entity.Conn, error) {
	if s.okAcquires == 0 {
		return nil, &entity.AcquireError{Wait: s.failWait, Err: entity.ErrUnavailable}
	}
	s.okAcquires--
	c, err := s.Store.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	return &timedConn{Conn: c, s: s}, nil
}

type timedConn struct {
	entity.Conn
	s *timedStore
}

func (c *timedConn) AcquireWait() time.Duration { return c.s.acquire }
func (c *timedConn) SQLTime() time.Duration     { return time.Duration(c.Statements()) * c.s.sql }
func (c *timedConn) NetworkWait() time.Duration { return time.Duration(c.Statements()) * c.s.net }

// TestTallyReadsTheStore checks that a command's tally adds up the figures
// the store measured, to the nanosecond, and measures none of its own: the
// Conns' acquire waits, statement times and network waits, and the wait of
// an acquire that failed (*entity.AcquireError).
func TestTallyReadsTheStore(t *testing.T) {
	const acq, sql, net, fail = 3 * time.Microsecond, 5 * time.Microsecond, 2 * time.Microsecond, 7 * time.Millisecond
	for _, tt := range []struct {
		view       *commands.View
		okAcquires int
		want       commands.Tally
		wantErr    bool
	}{
		{commands.AllView, 10, commands.Tally{Queries: 1, Acquires: 1, AcquireWait: acq, SQLTime: sql, NetworkWait: net}, false},
		{commands.OnceGetView, 10, commands.Tally{Queries: 4, Acquires: 1, AcquireWait: acq, SQLTime: 4 * sql, NetworkWait: 4 * net}, false},
		{commands.EachGetView, 10, commands.Tally{Queries: 4, Acquires: 4, AcquireWait: 4 * acq, SQLTime: 4 * sql, NetworkWait: 4 * net}, false},
		// The third acquire fails: its wait counts, as the ones before.
		{commands.EachGetView, 2, commands.Tally{Queries: 2, Acquires: 2, AcquireWait: 2*acq + fail, SQLTime: 2 * sql, NetworkWait: 2 * net}, true},
	} {
		s := &timedStore{Store: fake.New(10), acquire: acq, sql: sql, net: net, failWait: fail, okAcquires: tt.okAcquires}
		res, err := tt.view.Run(context.Background(), s, commands.Request{N: 4})
		if (err != nil) != tt.wantErr || (err != nil && !errors.Is(err, entity.ErrUnavailable)) {
			t.Errorf("%s with %d acquires that succeed: error %v; want one: %v", tt.view.Name(), tt.okAcquires, err, tt.wantErr)
		}
		if res.Tally != tt.want {
			t.Errorf("%s with %d acquires that succeed: tally %+v; want %+v", tt.view.Name(), tt.okAcquires, res.Tally, tt.want)
		}
	}
}
