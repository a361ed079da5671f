package commands_test

import (
	"context"
	"fmt"
	"testing"

	"bbslab/commands"
	"bbslab/entity/fake"
)

// TestExpectMatchesRun checks View.Expect against the tally of a real Run
// on boards holding more, as many and fewer posts than asked for, with and
// without a posted message.
func TestExpectMatchesRun(t *testing.T) {
	for _, v := range commands.Views {
		for _, total := range []int{0, 1, 5, 30, 100} {
			for _, n := range []int{1, 5, 30} {
				for _, post := range []bool{false, true} {
					name := fmt.Sprintf("%s total=%d n=%d post=%v", v.Name(), total, n, post)
					s := fake.New(total)
					req := commands.Request{N: n}
					if post {
						req.NewPost = &commands.NewPost{Name: "n", Message: "m"}
					}
					res, err := v.Run(context.Background(), s, req)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					// The posted message is among the posts read.
					q, a := v.Expect(len(res.Posts), n, post)
					if q != res.Tally.Queries || a != res.Tally.Acquires {
						t.Errorf("%s: Expect(%d, %d, %v) = %d queries, %d acquires; Run made %d, %d",
							name, len(res.Posts), n, post, q, a, res.Tally.Queries, res.Tally.Acquires)
					}
				}
			}
		}
	}
}
