package live

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// History limits: an hour of per-second frames, and the other frames.
const (
	MaxSecondFrames = 3600
	MaxKeptFrames   = 10_000
)

// subscriberBuffer is how many frames a browser may lag behind.
const subscriberBuffer = 64

// A Hub keeps the recent frames and hands each new one to every browser
// without waiting: one that lags loses frames. Call New to get one.
type Hub struct {
	mu      sync.Mutex
	seq     uint64
	seconds []entry
	kept    []entry
	subs    map[*subscriber]struct{}
	closed  bool

	dropped atomic.Int64
}

// An entry is one published frame, encoded once.
type entry struct {
	seq  uint64
	data []byte // the frame's JSON, no trailing newline
}

// A subscriber is one open /events stream.
type subscriber struct {
	ch   chan entry
	done chan struct{} // closed by Close
}

// New returns an empty Hub.
func New() *Hub {
	return &Hub{subs: make(map[*subscriber]struct{})}
}

// Publish validates f, keeps it in the history and offers it to every
// connected browser; it fails for a frame the page cannot draw, or after Close.
func (h *Hub) Publish(f Frame) error {
	if err := f.Validate(); err != nil {
		return fmt.Errorf("live: publish frame at t=%v: %w", f.T, err)
	}
	f.Server, f.Doing, f.Client.Errors = nonNil(f.Server), nonNil(f.Doing), nonNil(f.Client.Errors)
	data, err := json.Marshal(f) // escapes <, > and &: safe inside a <script> element
	if err != nil {
		return fmt.Errorf("live: encode frame at t=%v: %w", f.T, err)
	}
	kept := f.Step != nil || f.Tune != nil || len(f.Claims) > 0 || len(f.Notes) > 0 || f.Done

	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return fmt.Errorf("live: publish frame at t=%v: the hub is closed", f.T)
	}
	h.seq++
	e := entry{seq: h.seq, data: data}
	if kept {
		h.kept = appendCapped(h.kept, e, MaxKeptFrames)
	} else {
		h.seconds = appendCapped(h.seconds, e, MaxSecondFrames)
	}
	for s := range h.subs {
		select {
		case s.ch <- e:
		default:
			h.dropped.Add(1)
		}
	}
	return nil
}

func appendCapped(list []entry, e entry, limit int) []entry {
	if len(list) >= limit {
		list[0] = entry{} // let the encoded frame go
		list = list[1:]
	}
	return append(list, e)
}

// nonNil returns s, or an empty slice for nil, which JSON encodes as [].
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// history returns the entries after lastID, oldest first; h.mu is held.
func (h *Hub) history(lastID uint64) []entry {
	out := slices.DeleteFunc(slices.Concat(h.seconds, h.kept), func(e entry) bool { return e.seq <= lastID })
	slices.SortFunc(out, func(a, b entry) int { return cmp.Compare(a.seq, b.seq) })
	return out
}

// Dropped reports how many frames lagging browsers lost.
func (h *Hub) Dropped() int64 { return h.dropped.Load() }

// subscribe registers a stream with the history after lastID, unless closed.
func (h *Hub) subscribe(lastID uint64) (s *subscriber, past []entry, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, nil, false
	}
	past = h.history(lastID)
	s = &subscriber{ch: make(chan entry, subscriberBuffer), done: make(chan struct{})}
	h.subs[s] = struct{}{}
	return s, past, true
}

func (h *Hub) unsubscribe(s *subscriber) {
	h.mu.Lock()
	delete(h.subs, s)
	h.mu.Unlock()
}

// Close ends every open stream and refuses further frames.
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.closed = true
	for s := range h.subs {
		close(s.done)
		delete(h.subs, s)
	}
}

func (h *Hub) framesJSON() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	var datas [][]byte
	for _, e := range h.history(0) {
		datas = append(datas, e.data)
	}
	return slices.Concat([]byte("["), bytes.Join(datas, []byte(",")), []byte("]"))
}

// Frames returns the frames in the history, oldest first.
func (h *Hub) Frames() ([]Frame, error) {
	var frames []Frame
	if err := json.Unmarshal(h.framesJSON(), &frames); err != nil {
		return nil, fmt.Errorf("live: decode history: %w", err)
	}
	return frames, nil
}
