package loadtest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"
)

func TestSmoke(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(2 * time.Millisecond)
		w.Write([]byte("hello world"))
	}))
	defer srv.Close()
	res, err := Run(context.Background(), Settings{Requests: []Request{{URL: srv.URL + "/x?a={{seq}}"}}, Clients: 10, Duration: 2 * time.Second, Warmup: 500 * time.Millisecond, Think: 10 * time.Millisecond, Model: ModelRate})
	if err != nil {
		t.Fatal(err)
	}
	WriteSummary(os.Stdout, res)
}
