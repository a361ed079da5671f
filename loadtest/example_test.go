package loadtest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"bbslab/loadtest"
)

// A run of two clients against a test server, stopped after 20 measured
// requests; the result holds the latency figures, the per-second series
// and the generator's own cost.
func ExampleRun() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("hello"))
	}))
	defer srv.Close()

	res, err := loadtest.Run(context.Background(), loadtest.Settings{
		Requests:    []loadtest.Request{{URL: srv.URL + "/"}},
		Clients:     2,
		MaxRequests: 20,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d requests, %d errors\n", res.Total.Requests, res.Total.Errors)
	// Output: 20 requests, 0 errors
}

// A sweep runs once per client count; here each step also prints its
// result as it comes (a command would write its own files per step).
func ExampleSweep() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("hello"))
	}))
	defer srv.Close()

	s := loadtest.Settings{Requests: []loadtest.Request{{URL: srv.URL + "/"}}, MaxRequests: 30}
	runs, err := loadtest.Sweep(context.Background(), s, []int{1, 3}, func(ctx context.Context, s loadtest.Settings) (*loadtest.Result, error) {
		res, err := loadtest.Run(ctx, s)
		if err == nil {
			fmt.Printf("%s: %d requests\n", s.Name, res.Total.Requests)
		}
		return res, err
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(runs), "runs")
	// Output:
	// 1 clients: 30 requests
	// 3 clients: 30 requests
	// 2 runs
}

// counter is an Observer that adds up the successes of each second's row
// and prints the sum when the run ends.
type counter struct{ ok int64 }

func (c *counter) Second(row loadtest.SecondRow) { c.ok += row.Successes }
func (c *counter) End()                          { fmt.Println(c.ok, "successes, second by second") }

// Observers are told of each second's row as the run goes, and of its
// end: a Progress line on a terminal, a live dashboard, or one's own.
// This one adds up the successes, which come to the run's requests.
func ExampleObserver() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("hello"))
	}))
	defer srv.Close()

	s := loadtest.Settings{Requests: []loadtest.Request{{URL: srv.URL + "/"}}, Clients: 4, MaxRequests: 50,
		Observers: []loadtest.Observer{&counter{}}}
	if _, err := loadtest.Run(context.Background(), s); err != nil {
		fmt.Println(err)
	}
	// Output: 50 successes, second by second
}
