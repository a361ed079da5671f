package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"bbslab/internal/cli"
	"bbslab/workshop/room"
)

// roomFlags are -room and -room-token of experiment, run, sweep and tune: the
// workshop room their result file is sent to once written (workshop/room).
type roomFlags struct{ url, token *string }

func bindRoom(fs *flag.FlagSet) roomFlags {
	return roomFlags{
		url:   fs.String("room", "", "send the result file to the workshop room at `URL` (as the instructor printed it) once written; a failure to send says how to send it again and does not fail the command"),
		token: fs.String("room-token", "", "the room's `token` (default $"+room.TokenVar+")"),
	}
}

// check refuses -room without the file to send (-out) or a token.
func (f roomFlags) check(file string) error {
	switch {
	case *f.url == "":
		return nil
	case file == "":
		return cli.Usagef("-room: give -out FILE: the room is sent the file the command writes, which stays on this laptop")
	case cli.CheckHTTPURL(*f.url) != nil:
		return cli.Usagef("-room %q: %v", *f.url, cli.CheckHTTPURL(*f.url))
	case *f.token == "" && os.Getenv(room.TokenVar) == "":
		return cli.Usagef("-room: no token: give -room-token or set %s to the token the instructor handed out", room.TokenVar)
	}
	return nil
}

// post sends file to the room, saying on w how it went and, when it did
// not arrive, how to send it again.
func (f roomFlags) post(ctx context.Context, file string, w io.Writer) {
	if *f.url == "" {
		return
	}
	tok := *f.token
	if tok == "" {
		tok = os.Getenv(room.TokenVar)
	}
	logf := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	rec, err := room.Send(ctx, file, room.SendOptions{URL: *f.url, Token: tok, Logf: logf})
	if err != nil {
		logf("room: %v\nroom: the file stays at %s; send it again with:\n    %s", err, file, room.ResendHint(file, *f.url))
		return
	}
	logf("room: sent %s as %s (stored as %s)", file, rec.Laptop, rec.Stored)
}
