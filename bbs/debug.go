package bbs

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime"
	rpprof "runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/felixge/fgprof"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// debugRoutes adds the profiles, the goroutine dump and the metrics to the
// admin mux. None of them is ever on the public listener.
func (s *Server) debugRoutes(mux *routeList) {
	mux.HandleFunc("/debug/pprof/", pprof.Index) // heap, goroutine, block, mutex, allocs, threadcreate
	mux.HandleFunc("/debug/pprof/cmdline", s.handleCmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.Handle("GET /debug/fgprof", fgprof.Handler())
	mux.HandleFunc("GET /debug/goroutines", s.handleGoroutines)
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{
		ErrorLog: slogPrinter{s},
	}))
}

// handleCmdline answers as pprof.Cmdline does (the arguments separated by
// NUL bytes) but with Options.Cmdline, whose secrets are redacted, in place
// of os.Args.
func (s *Server) handleCmdline(w http.ResponseWriter, r *http.Request) {
	args := s.opt.Cmdline
	if args == nil {
		args = os.Args[:1]
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprint(w, strings.Join(args, "\x00"))
}

// slogPrinter sends promhttp's errors to the server's log.
type slogPrinter struct{ s *Server }

// Println logs v as a warning.
func (p slogPrinter) Println(v ...any) { p.s.log.Warn("metrics", "err", fmt.Sprint(v...)) }

func (s *Server) handleGoroutines(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	WriteGoroutines(w)
}

// The frames that say what a request goroutine waits for, innermost first
// in a stack. They are our own functions, kept out of line
// (//go:noinline) so that each is a frame of its own.
// The handler is a closure, so its frame reads
// "bbs.(*Server).Handler.(*Server).handleBoard.func1+0x..".
var waitFrames = []struct{ frame, meaning string }{
	{"driverkit.networkWait+", "waiting on the database network (networkWait)"},
	{"driverkit.connectWait+", "opening a DB connection at a distance (connectWait)"},
	{"commands.inSQL+", "running SQL (inSQL)"},
	{"commands.acquireConn+", "waiting for a DB connection (acquireConn)"},
	{").waitForWorker+", "waiting for a worker (waitForWorker)"},
	{").handleBoard", "in the board handler, elsewhere (decoding, rendering)"},
}

// WriteGoroutines writes a dump of every goroutine, identical stacks
// grouped with their count (runtime/pprof's goroutine profile at debug=1,
// which does not stop the world for long), preceded by a count of request
// goroutines by the frame that says what each waits for. It is the JVM's
// thread dump: /debug/goroutines and SIGUSR1 write it.
func WriteGoroutines(w io.Writer) error {
	var dump bytes.Buffer
	if err := rpprof.Lookup("goroutine").WriteTo(&dump, 1); err != nil {
		return fmt.Errorf("goroutine dump: %w", err)
	}
	counts := classifyGoroutines(dump.Bytes())
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "goroutine dump at %s: %d goroutines\n\nrequests by what they do now (innermost of these frames):\n",
		time.Now().UTC().Format(time.RFC3339Nano), runtime.NumGoroutine())
	for i, f := range waitFrames {
		fmt.Fprintf(bw, "  %-58s %d\n", f.meaning, counts[i])
	}
	bw.WriteString("\n")
	bw.Write(dump.Bytes())
	return bw.Flush()
}

// classifyGoroutines counts, in a debug=1 goroutine dump, the goroutines
// whose stack holds each of waitFrames, by the innermost such frame.
func classifyGoroutines(dump []byte) []int {
	counts := make([]int, len(waitFrames))
	for _, group := range bytes.Split(dump, []byte("\n\n")) {
		lines := strings.Split(string(group), "\n")
		n, ok := groupCount(lines[0])
		if !ok {
			continue
		}
	frames:
		for _, l := range lines[1:] {
			if !strings.HasPrefix(l, "#\t") {
				continue
			}
			for i, f := range waitFrames {
				if strings.Contains(l, f.frame) {
					counts[i] += n
					break frames
				}
			}
		}
	}
	return counts
}

// groupCount reads the count of a group header line "N @ 0x... 0x...".
func groupCount(line string) (int, bool) {
	num, _, ok := strings.Cut(line, " @ ")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	return n, err == nil
}
