package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"bbslab/internal/cli"
	"bbslab/workshop/room"
)

func init() {
	commands["room"] = func(args []string) int {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return cli.Exit(os.Stderr, "workshop room", runRoom(ctx, args, os.Getenv, os.Stdout, os.Stderr))
	}
}

// runRoom serves the room's page on the venue's network until ctx ends
// (package room), or with -send posts one result file to a room.
func runRoom(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("room", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: workshop room [flags]                  serve the room (the instructor)\n       workshop room -send FILE -to URL       send a result file to it again (an attendee)\n\nflags:")
		fs.PrintDefaults()
	}
	addr := fs.String("addr", ":8099", "listen `address` (all interfaces: the room serves the venue's network)")
	token := fs.String("token", "", "the `token` attendees send (default: $"+room.TokenVar+" with -send; a new one, printed, when serving)")
	dir := fs.String("dir", "room", "`folder` the uploads are kept in, one file each; read again on start")
	maxMB := fs.Int("max-mb", room.DefaultMaxBytes>>20, "cap on an upload's size, in `MiB`")
	perMin := fs.Float64("per-min", room.DefaultPerMin, "uploads a minute each laptop (address) may send on average")
	burst := fs.Int("burst", room.DefaultBurst, "uploads a laptop may send at once")
	file := fs.String("send", "", "send the result `file` to the room at -to and exit")
	to := fs.String("to", "", "the room's `URL` for -send, as the instructor printed it")
	laptop := fs.String("laptop", "", "this laptop's `name` in the room for -send (default: $"+room.NameVar+" or the host name)")
	if err := cli.ParseFlags(fs, args, false); err != nil {
		return err
	}
	if *file != "" {
		return sendRoom(ctx, *file, *to, *laptop, cmp.Or(*token, getenv(room.TokenVar)), stdout, stderr)
	}
	if *maxMB < 1 || *perMin <= 0 || *burst < 1 {
		return cli.Usagef("room: -max-mb %d, -per-min %g, -burst %d: want each at least 1 (-per-min above 0)", *maxMB, *perMin, *burst)
	}
	if *token == "" {
		*token = newToken()
	}
	r, err := room.Open(room.Options{Dir: *dir, Token: *token, MaxBytes: int64(*maxMB) << 20, PerMin: *perMin, Burst: *burst,
		Logf: func(format string, a ...any) { fmt.Fprintf(stdout, format+"\n", a...) }})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("room: %w", err)
	}
	srv := &http.Server{Handler: r.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 5 * time.Minute,
		WriteTimeout: time.Minute, IdleTimeout: 2 * time.Minute}
	announce(stdout, ln.Addr().(*net.TCPAddr), *token, *dir, r.Uploads())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("room: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = srv.Shutdown(sctx)
	<-done
	fmt.Fprintf(stdout, "room: stopped; the uploads are in %s\n", *dir)
	return err
}

// announce prints the room's addresses, its token and the line
// attendees add to their loadtest commands.
func announce(w io.Writer, at *net.TCPAddr, token, dir string, uploads int) {
	urls := roomURLs(at)
	fmt.Fprintf(w, "room: %d uploads in %s\n", uploads, dir)
	for _, u := range urls {
		fmt.Fprintf(w, "room: serving %s/ (JSON: %s/room.json)\n", u, u)
	}
	fmt.Fprintf(w, "room: token %s\n", token)
	fmt.Fprintf(w, "room: attendees add to loadtest experiment, run or tune:\n    -room %s -room-token %s\n", urls[0], token)
	fmt.Fprintf(w, "  (or export %s=%s and add -room %s)\n", room.TokenVar, token, urls[0])
	fmt.Fprintf(w, "room: a file that did not arrive: go run ./cmd/workshop room -send FILE -to %s -token %s\n", urls[0], token)
}

// roomURLs are the URLs the room answers at: the bound address, or when
// it listens on all interfaces each of the machine's IPv4 addresses on a
// network (loopback last, as the only one when there is no other).
func roomURLs(at *net.TCPAddr) []string {
	if !at.IP.IsUnspecified() {
		return []string{"http://" + at.String()}
	}
	var urls []string
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok || ipn.IP.To4() == nil || ipn.IP.IsLoopback() || ipn.IP.IsLinkLocalUnicast() {
			continue
		}
		urls = append(urls, fmt.Sprintf("http://%s:%d", ipn.IP, at.Port))
	}
	return append(urls, fmt.Sprintf("http://127.0.0.1:%d", at.Port))
}

// newToken is a token that is easy to read out and hard to guess (80
// random bits).
func newToken() string {
	b := make([]byte, 10)
	rand.Read(b)
	return strings.ToLower(base32.StdEncoding.EncodeToString(b))
}

// sendRoom posts one result file (workshop room -send).
func sendRoom(ctx context.Context, file, to, laptop, token string, stdout, stderr io.Writer) error {
	if to == "" {
		return cli.Usagef("room: -send needs -to URL, the room's address as the instructor printed it")
	}
	if err := cli.CheckHTTPURL(to); err != nil {
		return cli.Usagef("room: -to %q: %v", to, err)
	}
	rec, err := room.Send(ctx, file, room.SendOptions{URL: to, Token: token, Laptop: laptop,
		Logf: func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }})
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return cli.Usage(err)
		}
		return err
	}
	fmt.Fprintf(stdout, "room: sent %s as %s: %s %s, stored as %s\n", file, rec.Laptop, rec.Kind, rec.Name, rec.Stored)
	return nil
}
