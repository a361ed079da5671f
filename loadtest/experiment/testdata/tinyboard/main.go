// Command tinyboard is a server for the experiment tests of go run
// commands (gobuild_test.go): it answers /readyz and /bbs, and prints the
// program it runs as and its parent's process id, so that a test can
// tell the binary from a go run.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	flag.Parse()
	exe, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("tinyboard exe=%s ppid=%d\n", exe, os.Getppid())
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "post-1") })
	log.Fatal(http.Serve(l, nil))
}
