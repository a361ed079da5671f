package feed

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"bbslab/loadtest"
	"bbslab/loadtest/live"
	"bbslab/loadtest/watch"
)

// BenchmarkSecond measures what the dashboard costs the generator per
// second of load: one frame built from a second's row and a read of 20
// readings and 4 states, encoded, kept and streamed to one connected
// page (read and discarded in this process, so its cost is counted too).
// ns/op is the CPU the dashboard adds per second, at most: run it with
// go test -run '^$' -bench Second ./loadtest/live/feed.
func BenchmarkSecond(b *testing.B) {
	hub := live.New()
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := live.Serve(ctx, "127.0.0.1:0", hub)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { cancel(); srv.Wait() }()
	f := New(hub, "bench")
	r := oneRead(b)
	f.Begin(Position{Run: "run", Step: 1, Steps: 1, Clients: 1000, StepSeconds: 20})

	// One page connected: read its stream to the end.
	resp, err := http.Get(srv.URL + "events")
	if err != nil {
		b.Fatal(err)
	}
	read := make(chan int)
	go func() {
		n := 0
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "data: ") {
				n++
			}
		}
		read <- n
	}()
	h := loadtest.NewHistogram()
	for i := range 1000 {
		h.Record(time.Duration(100+i) * time.Microsecond)
	}
	row := loadtest.SecondRow{T: 1, Successes: 1000, Throughput: 1000, P50Ms: 0.5, P90Ms: 0.9, P99Ms: 1.1, Histogram: h,
		Errors: 2, ErrorKinds: map[string]int64{"timeout": 1, "status": 1}}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		f.mu.Lock()
		f.read = &r
		f.mu.Unlock()
		f.second(row)
	}
	b.StopTimer()
	if err := f.Done(nil); err != nil {
		b.Fatal(err)
	}
	n := <-read // the stream ends with the hub
	resp.Body.Close()
	if n == 0 {
		b.Fatalf("the page read no frame")
	}
}

// oneRead polls a stats JSON of 20 numbers twice with a real watcher and
// returns its Read: 20 readings on 5 panels and 4 states.
func oneRead(b *testing.B) watch.Read {
	b.Helper()
	t0 := time.Now()
	stats := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := time.Since(t0).Seconds()
		var parts []string
		for i := range 20 {
			parts = append(parts, fmt.Sprintf(`"r%d": %g`, i, float64(i)*s))
		}
		fmt.Fprintf(w, "{%s}", strings.Join(parts, ","))
	}))
	defer stats.Close()
	var readings []watch.Stat
	for i := range 20 {
		path := fmt.Sprintf("r%d", i)
		readings = append(readings, watch.Stat{Name: path, Legend: "reading " + path, Path: path, Kind: watch.Counter,
			Unit: "ms/request", Panel: fmt.Sprintf("panel %d", i%5)})
	}
	got := make(chan watch.Read, 1)
	w, err := watch.New(watch.Options{StatsURL: stats.URL, Stats: readings,
		States: []watch.State{{Name: "a", Path: "r1"}, {Name: "b", Path: "r2"}, {Name: "c", Path: "r3"}, {Name: "d", Path: "r4", Minus: []string{"b", "c"}}},
		OnRead: func(r watch.Read) {
			select {
			case got <- r:
			default:
			}
		}})
	if err != nil {
		b.Fatal(err)
	}
	run := w.Start(context.Background(), loadtest.Settings{Duration: time.Second}, time.Now())
	defer run.Finish(0, 0)
	select {
	case r := <-got:
		if len(r.Values(1000)) != 20 || len(r.States) != 4 {
			b.Fatalf("read has %d values and %d states; want 20 and 4", len(r.Values(1000)), len(r.States))
		}
		return r
	case <-time.After(5 * time.Second):
		b.Fatal("no read of the stats in 5 s")
	}
	return watch.Read{}
}
