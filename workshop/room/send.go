package room

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// TokenVar names the environment variable that holds the room's token
// on an attendee's laptop; NameVar the laptop's name in the room
// (default: its host name).
const (
	TokenVar = "BBS_ROOM_TOKEN"
	NameVar  = "BBS_ROOM_NAME"
)

// SendOptions say where Send posts a file and how hard it tries.
type SendOptions struct {
	// URL is the room's address as the instructor printed it
	// (http://HOST:PORT); /upload is added unless it ends so.
	URL   string
	Token string
	// Laptop is the laptop's name in the room (default DefaultLaptop).
	Laptop string
	// Attempts bounds the tries (default 4); Wait is the pause after the
	// first failed one, doubled after each (default 2 s). A refusal that
	// sending again cannot mend (a wrong token, a file too large or not a
	// result) ends at once.
	Attempts int
	Wait     time.Duration
	// Client sends the requests (default: one with a 2-minute timeout).
	Client *http.Client
	// Logf reports each failed attempt (default: none).
	Logf func(format string, a ...any)
}

// SendError is a refusal by the room: its status and its sentence.
type SendError struct {
	Status  int
	Message string
}

func (e *SendError) Error() string {
	return fmt.Sprintf("the room refused the file (%d %s): %s", e.Status, http.StatusText(e.Status), e.Message)
}

// maxRetryAfter caps how long Send waits on the room's Retry-After.
const maxRetryAfter = time.Minute

// Send posts the result file at path to the room and returns its
// receipt. The file is read again for each attempt and never changed or
// removed: when every attempt fails it is still there to send again
// (ResendHint).
func Send(ctx context.Context, path string, o SendOptions) (Receipt, error) {
	if o.Attempts <= 0 {
		o.Attempts = 4
	}
	if o.Wait <= 0 {
		o.Wait = 2 * time.Second
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 2 * time.Minute}
	}
	if o.Laptop == "" {
		o.Laptop = DefaultLaptop()
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.Token == "" {
		return Receipt{}, fmt.Errorf("send %s: no token (give the one the instructor handed out, or set %s)", path, TokenVar)
	}
	url := strings.TrimSuffix(o.URL, "/")
	if !strings.HasSuffix(url, "/upload") {
		url += "/upload"
	}
	wait := o.Wait
	for i := 1; ; i++ {
		rec, retryAfter, err := sendOnce(ctx, url, path, o)
		var refused *SendError
		switch {
		case err == nil:
			return rec, nil
		case errors.As(err, &refused) && refused.Status < 500 && refused.Status != http.StatusTooManyRequests,
			errors.Is(err, os.ErrNotExist), i == o.Attempts:
			return Receipt{}, fmt.Errorf("send %s to %s (attempt %d of %d): %w", path, url, i, o.Attempts, err)
		}
		pause := max(wait, min(retryAfter, maxRetryAfter))
		o.Logf("room: attempt %d of %d: %v; trying again in %s", i, o.Attempts, err, pause)
		select {
		case <-ctx.Done():
			return Receipt{}, fmt.Errorf("send %s to %s: %w (after %d attempts: %v)", path, url, ctx.Err(), i, err)
		case <-time.After(pause):
		}
		wait *= 2
	}
}

// sendOnce posts the file once; retryAfter is the room's Retry-After.
func sendOnce(ctx context.Context, url, path string, o SendOptions) (rec Receipt, retryAfter time.Duration, err error) {
	f, err := os.Open(path)
	if err != nil {
		return rec, 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return rec, 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, f)
	if err != nil {
		return rec, 0, err
	}
	req.ContentLength = info.Size()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+o.Token)
	req.Header.Set(LaptopHeader, o.Laptop)
	resp, err := o.Client.Do(req)
	if err != nil {
		return rec, 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return rec, 0, err
	}
	if resp.StatusCode != http.StatusCreated {
		secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		return rec, time.Duration(secs) * time.Second, &SendError{Status: resp.StatusCode, Message: strings.TrimPrefix(strings.TrimSpace(string(body)), "room: ")}
	}
	if err := json.Unmarshal(body, &rec); err != nil {
		return rec, 0, fmt.Errorf("the room's receipt: %w", err)
	}
	return rec, 0, nil
}

// DefaultLaptop is the laptop's name in the room: $BBS_ROOM_NAME, else
// its host name, each character a name may not hold replaced by '-'.
func DefaultLaptop() string {
	name := os.Getenv(NameVar)
	if name == "" {
		name, _ = os.Hostname()
	}
	name = strings.Trim(regexp.MustCompile(`[^A-Za-z0-9._-]+`).ReplaceAllString(name, "-"), "-._")
	if len(name) > 40 {
		name = name[:40]
	}
	if name == "" {
		return "laptop"
	}
	return name
}

// ResendHint is the command that sends path to the room at url again.
func ResendHint(path, url string) string {
	if strings.ContainsAny(path, " '\"$") {
		path = strconv.Quote(path)
	}
	return fmt.Sprintf("go run ./cmd/workshop room -send %s -to %s (the token from -token or $%s)", path, url, TokenVar)
}
