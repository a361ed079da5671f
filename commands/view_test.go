package commands_test

import (
	"context"
	"reflect"
	"testing"

	"bbslab/commands"
	"bbslab/entity/fake"
)

func ptr(s string) *string { return &s }

// TestCounts checks the query and acquire pattern of each command.
func TestCounts(t *testing.T) {
	type want struct{ queries, acquires int }
	tests := []struct {
		view *commands.View
		n    int
		post bool
		want want
	}{
		{commands.AllView, 1, false, want{1, 1}},
		{commands.AllView, 30, false, want{1, 1}},
		{commands.AllView, 500, false, want{1, 1}},
		{commands.OnceGetView, 1, false, want{1, 1}},
		{commands.OnceGetView, 30, false, want{30, 1}},
		{commands.OnceGetView, 500, false, want{500, 1}},
		{commands.EachGetView, 1, false, want{1, 1}},
		{commands.EachGetView, 30, false, want{30, 30}},
		{commands.EachGetView, 500, false, want{500, 500}},
		{commands.AllView, 30, true, want{2, 2}},
		{commands.OnceGetView, 30, true, want{31, 2}},
		{commands.EachGetView, 30, true, want{31, 31}},
	}
	for _, tt := range tests {
		s := fake.New(1000)
		req := commands.Request{N: tt.n}
		if tt.post {
			req.NewPost = &commands.NewPost{Name: "n", Message: "m"}
		}
		res, err := tt.view.Run(context.Background(), s, req)
		if err != nil {
			t.Fatalf("%s n=%d post=%v: %v", tt.view.Name(), tt.n, tt.post, err)
		}
		got := want{res.Tally.Queries, res.Tally.Acquires}
		if got != tt.want {
			t.Errorf("%s n=%d post=%v: queries, acquires = %v; want %v", tt.view.Name(), tt.n, tt.post, got, tt.want)
		}
		if int64(got.queries) != s.Queries.Load() || int64(got.acquires) != s.Acquires.Load() {
			t.Errorf("%s n=%d: tally %v disagrees with the store's counts (%d queries, %d acquires)", tt.view.Name(), tt.n, got, s.Queries.Load(), s.Acquires.Load())
		}
		if s.Acquires.Load() != s.Releases.Load() {
			t.Errorf("%s n=%d: %d acquires but %d releases", tt.view.Name(), tt.n, s.Acquires.Load(), s.Releases.Load())
		}
		if len(res.Posts) != tt.n {
			t.Errorf("%s n=%d: got %d posts", tt.view.Name(), tt.n, len(res.Posts))
		}
		if wantIns := map[bool]int64{false: 0, true: 1}[tt.post]; s.Inserts.Load() != wantIns {
			t.Errorf("%s post=%v: %d inserts; want %d", tt.view.Name(), tt.post, s.Inserts.Load(), wantIns)
		}
	}
}

// TestSamePosts checks that the three commands read the same posts in the
// same order, also when there are fewer posts than asked for.
func TestSamePosts(t *testing.T) {
	for _, total := range []int{0, 5, 1000} {
		s := fake.New(total)
		var first []any
		for i, v := range commands.Views {
			res, err := v.Run(context.Background(), s, commands.Request{N: 30})
			if err != nil {
				t.Fatal(err)
			}
			if want := min(total, 30); len(res.Posts) != want {
				t.Fatalf("%s with %d posts: got %d posts; want %d", v.Name(), total, len(res.Posts), want)
			}
			for j := 1; j < len(res.Posts); j++ {
				if res.Posts[j].No >= res.Posts[j-1].No {
					t.Fatalf("%s: posts not newest first at %d: %d then %d", v.Name(), j, res.Posts[j-1].No, res.Posts[j].No)
				}
			}
			got := []any{res.Posts}
			if i == 0 {
				first = got
			} else if !reflect.DeepEqual(got, first) {
				t.Errorf("%s read other posts than %s", v.Name(), commands.Views[0].Name())
			}
		}
	}
}

// TestPostFirst checks that a posted message is stored before the view
// reads, so it appears at the top.
func TestPostFirst(t *testing.T) {
	for _, v := range commands.Views {
		s := fake.New(10)
		res, err := v.Run(context.Background(), s, commands.Request{N: 3, NewPost: &commands.NewPost{Name: "名前", Message: "こんにちは"}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Posted == nil || res.Posted.No != 11 {
			t.Fatalf("%s: Posted = %+v; want post 11", v.Name(), res.Posted)
		}
		if res.Posts[0] != *res.Posted {
			t.Errorf("%s: first post %+v; want the posted one %+v", v.Name(), res.Posts[0], *res.Posted)
		}
	}
}

// TestAcquireError checks that a failed acquire is returned, not hidden.
func TestAcquireError(t *testing.T) {
	for _, v := range commands.Views {
		s := fake.New(10)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		s.Gate = make(chan struct{})
		if _, err := v.Run(ctx, s, commands.Request{N: 3}); err == nil {
			t.Errorf("%s with a cancelled context: no error", v.Name())
		}
	}
}
