package room

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// The caps' defaults: an experiment.json of the lab's longest
// experiments is a few MB; a laptop posts a handful of files an hour.
const (
	DefaultMaxBytes = 32 << 20
	DefaultPerMin   = 6
	DefaultBurst    = 6
)

// laptopPattern is what a laptop's name may hold: it is part of a file
// name and of the page.
const laptopPattern = `[A-Za-z0-9][A-Za-z0-9._-]{0,39}`

var laptopName = regexp.MustCompile(`^` + laptopPattern + `$`)

// LaptopHeader carries the laptop's name on an upload; without it the
// laptop is named after its address.
const LaptopHeader = "X-Laptop"

// Options configure a room.
type Options struct {
	// Dir holds the uploads, one file each (created when missing).
	Dir string
	// Token is the bearer token an upload must carry (not empty).
	Token string
	// MaxBytes caps an upload's size (default DefaultMaxBytes).
	MaxBytes int64
	// PerMin and Burst cap each laptop's uploads, by its address: PerMin
	// a minute on average, Burst at once (defaults DefaultPerMin,
	// DefaultBurst).
	PerMin float64
	Burst  int
	// Logf reports each upload accepted or refused (default: none).
	Logf func(format string, a ...any)
}

// A Room holds the uploads received, on disk and in memory, and serves
// them (Handler).
type Room struct {
	opt Options

	mu      sync.Mutex
	uploads []*upload
	seq     int
	limits  map[string]*rate.Limiter

	charts chartCache
}

// Open opens the room of o.Dir, reading every upload stored there.
func Open(o Options) (*Room, error) {
	if o.Token == "" {
		return nil, errors.New("room: no token")
	}
	if o.Dir == "" {
		return nil, errors.New("room: no directory")
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.PerMin <= 0 {
		o.PerMin = DefaultPerMin
	}
	if o.Burst <= 0 {
		o.Burst = DefaultBurst
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("room: %w", err)
	}
	ups, last, err := load(o.Dir, o.Logf)
	if err != nil {
		return nil, err
	}
	return &Room{opt: o, uploads: ups, seq: last, limits: map[string]*rate.Limiter{}}, nil
}

// Uploads counts the uploads the room holds.
func (r *Room) Uploads() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.uploads)
}

// Handler serves the room: POST /upload, the page at /, /room.json and
// the charts at /chart/ID.
func (r *Room) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /upload", r.handleUpload)
	mux.HandleFunc("GET /{$}", r.handlePage)
	mux.HandleFunc("GET /room.json", r.handleJSON)
	mux.HandleFunc("GET /chart/{id}", r.handleChart)
	return mux
}

// Receipt is the room's answer to an accepted upload.
type Receipt struct {
	Stored string `json:"stored"`
	Laptop string `json:"laptop"`
	Kind   string `json:"kind"`
	Name   string `json:"name,omitempty"`
}

// handleUpload takes one result file: the rate, the token, the laptop's
// name, the size, JSON, the shape, then the file is stored and only then
// acknowledged (201). Every refusal is a 4xx with a sentence; nothing
// already received is touched.
func (r *Room) handleUpload(w http.ResponseWriter, req *http.Request) {
	addr := remoteHost(req)
	if wait, ok := r.allow(addr); !ok {
		w.Header().Set("Retry-After", fmt.Sprint(int(math.Ceil(wait.Seconds()))))
		r.refuse(w, addr, http.StatusTooManyRequests, fmt.Sprintf("too many uploads from %s: at most %g a minute (%d at once); send again in %.0f s", addr, r.opt.PerMin, r.opt.Burst, math.Ceil(wait.Seconds())))
		return
	}
	if msg := r.checkToken(req); msg != "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="room"`)
		r.refuse(w, addr, http.StatusUnauthorized, msg)
		return
	}
	laptop := req.Header.Get(LaptopHeader)
	if laptop == "" {
		laptop = strings.NewReplacer(":", "-", "%", "-").Replace(addr)
	}
	if !laptopName.MatchString(laptop) {
		r.refuse(w, addr, http.StatusBadRequest, fmt.Sprintf("%s %q: want 1 to 40 letters, digits, '.', '_' or '-', starting with a letter or digit", LaptopHeader, laptop))
		return
	}
	tooLarge := fmt.Sprintf("the upload is over the room's cap of %d bytes; nothing stored", r.opt.MaxBytes)
	if req.ContentLength > r.opt.MaxBytes { // refused before its body is read
		r.refuse(w, laptop, http.StatusRequestEntityTooLarge, tooLarge)
		return
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, req.Body, r.opt.MaxBytes))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig): // a body longer than it said, or of no length given
		r.refuse(w, laptop, http.StatusRequestEntityTooLarge, tooLarge)
		return
	case err != nil:
		r.refuse(w, laptop, http.StatusBadRequest, fmt.Sprintf("the upload was cut short (%v); nothing stored, send it again", err))
		return
	case !json.Valid(b):
		r.refuse(w, laptop, http.StatusBadRequest, "the upload is not JSON: send the result file loadtest wrote (experiment.json, or run, sweep or tune -out)")
		return
	}
	u, err := r.store(laptop, b)
	switch {
	case errors.Is(err, errShape):
		r.refuse(w, laptop, http.StatusUnprocessableEntity, err.Error())
		return
	case err != nil:
		r.opt.Logf("%v", err)
		http.Error(w, "room: the upload could not be stored; it is safe to send it again", http.StatusInternalServerError)
		return
	}
	r.opt.Logf("room: %s: %s stored as %s", laptop, u.title(), u.File)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(Receipt{Stored: u.File, Laptop: laptop, Kind: u.Kind, Name: u.Name})
}

// store checks b's shape from a synced temporary file and commits it
// under the next sequence number.
func (r *Room) store(laptop string, b []byte) (*upload, error) {
	tmp, err := writeTemp(r.opt.Dir, b)
	if err != nil {
		return nil, err
	}
	u, err := readUpload(tmp, b)
	if err != nil {
		os.Remove(tmp)
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	name, err := commit(r.opt.Dir, tmp, r.seq+1, laptop)
	if err != nil {
		return nil, err
	}
	r.seq++
	u.Seq, u.File, u.Laptop, u.Received = r.seq, name, laptop, time.Now()
	if info, err := os.Stat(filepath.Join(r.opt.Dir, name)); err == nil {
		u.Received = info.ModTime() // as Open will read it after a restart
	}
	r.uploads = append(r.uploads, u)
	return u, nil
}

// checkToken returns why req's token is not the room's, "" when it is.
func (r *Room) checkToken(req *http.Request) string {
	h := req.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(h, "Bearer ")
	switch {
	case h == "":
		return "no token: send \"Authorization: Bearer TOKEN\" with the token the instructor handed out"
	case !ok:
		return "the Authorization header is not \"Bearer TOKEN\""
	case subtle.ConstantTimeCompare([]byte(strings.TrimSpace(tok)), []byte(r.opt.Token)) != 1:
		return "wrong token: use the one the instructor handed out"
	}
	return ""
}

// allow takes one upload from the laptop at addr's allowance; when there
// is none it returns how long until there is.
func (r *Room) allow(addr string) (time.Duration, bool) {
	r.mu.Lock()
	lim := r.limits[addr]
	if lim == nil {
		lim = rate.NewLimiter(rate.Limit(r.opt.PerMin/60), r.opt.Burst)
		r.limits[addr] = lim
	}
	r.mu.Unlock()
	res := lim.Reserve()
	if d := res.Delay(); d > 0 {
		res.Cancel()
		return d, false
	}
	return 0, true
}

// refuse answers a refused upload with status and a sentence, and logs it.
func (r *Room) refuse(w http.ResponseWriter, who string, status int, msg string) {
	r.opt.Logf("room: %s: refused (%d): %s", who, status, msg)
	http.Error(w, "room: "+msg, status)
}

// remoteHost is the address a request came from, without its port.
func remoteHost(req *http.Request) string {
	host, _, err := net.SplitHostPort(req.RemoteAddr)
	if err != nil {
		return req.RemoteAddr
	}
	return host
}
