package room

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"bbslab/internal/cli"
)

// Flags are -room and -room-token of the load tool's commands that write a
// result file (experiment, run, sweep, tune): the room the file is sent to
// once written.
type Flags struct{ url, token *string }

// BindFlags registers -room and -room-token on fs.
func BindFlags(fs *flag.FlagSet) Flags {
	return Flags{
		url:   fs.String("room", "", "send the result file to the workshop room at `URL` (as the instructor printed it) once written; a failure to send says how to send it again and does not fail the command"),
		token: fs.String("room-token", "", "the room's `token` (default $"+TokenVar+")"),
	}
}

// Check refuses -room without the file to send (file, the command's -out),
// with a URL that is not http://, or without a token.
func (f Flags) Check(file string) error {
	if *f.url == "" {
		return nil
	}
	if file == "" {
		return errors.New("-room: give -out FILE: the room is sent the file the command writes, which stays on this laptop")
	}
	if err := cli.CheckHTTPURL(*f.url); err != nil {
		return fmt.Errorf("-room %q: %v", *f.url, err)
	}
	if *f.token == "" && os.Getenv(TokenVar) == "" {
		return fmt.Errorf("-room: no token: give -room-token or set %s to the token the instructor handed out", TokenVar)
	}
	return nil
}

// Post sends file to the room, saying on w how it went and, when it did not
// arrive, how to send it again; it never fails the command.
func (f Flags) Post(ctx context.Context, file string, w io.Writer) {
	if *f.url == "" {
		return
	}
	logf := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	rec, err := Send(ctx, file, SendOptions{URL: *f.url, Token: cmp.Or(*f.token, os.Getenv(TokenVar)), Logf: logf})
	if err != nil {
		logf("room: %v\nroom: the file stays at %s; send it again with:\n    %s", err, file, ResendHint(file, *f.url))
		return
	}
	logf("room: sent %s as %s (stored as %s)", file, rec.Laptop, rec.Stored)
}
