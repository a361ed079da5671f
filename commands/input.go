package commands

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on what a request may carry.
const (
	MaxName    = 64   // characters in a name
	MaxMessage = 1000 // characters in a message
	MaxN       = 500  // posts a view may show
)

// Anonymous is the name stored when a post has none.
const Anonymous = "名無しさん"

// NewPost is a message to store, validated: what becomes an entity.Post
// (with its number and time) once stored.
type NewPost struct {
	Name    string
	Message string
}

// Input is a request as it arrived, before validation. A nil Name or
// Message means the parameter was absent.
type Input struct {
	Cmd     string
	Name    *string
	Message *string
	N       string // posts to show; empty means the page size
}

// An InputError says what was wrong with a request. Its message is safe to
// show to the user.
type InputError struct {
	Field   string
	Problem string
}

func (e *InputError) Error() string { return e.Field + ": " + e.Problem }

// Decode validates in and returns the command to run and its request.
// pageSize is the number of posts shown when in.N is empty.
func Decode(in Input, pageSize int) (*View, Request, error) {
	v, ok := Lookup(in.Cmd)
	if !ok {
		if in.Cmd == "" {
			return nil, Request{}, &InputError{"cmd", "missing; use AllView, OnceGetView or EachGetView"}
		}
		return nil, Request{}, &InputError{"cmd", fmt.Sprintf("unknown command %s; use AllView, OnceGetView or EachGetView", quote(in.Cmd))}
	}
	req := Request{N: pageSize}
	if in.N != "" {
		n, err := strconv.Atoi(in.N)
		if err != nil || n < 1 || n > MaxN {
			return nil, Request{}, &InputError{"n", fmt.Sprintf("%s is not a whole number from 1 to %d", quote(in.N), MaxN)}
		}
		req.N = n
	}
	if in.Message != nil {
		p, err := validatePost(in.Name, *in.Message)
		if err != nil {
			return nil, Request{}, err
		}
		req.NewPost = &p
	}
	return v, req, nil
}

// validatePost checks a name and message and normalises line ends.
func validatePost(name *string, message string) (NewPost, error) {
	var p NewPost
	if name != nil {
		n, err := clean("name", *name, MaxName, false)
		if err != nil {
			return p, err
		}
		p.Name = strings.TrimSpace(n)
	}
	if p.Name == "" {
		p.Name = Anonymous
	}
	m, err := clean("message", message, MaxMessage, true)
	if err != nil {
		return p, err
	}
	if strings.TrimSpace(m) == "" {
		return p, &InputError{"message", "is empty"}
	}
	p.Message = m
	return p, nil
}

// clean checks that s is valid UTF-8 of at most max characters, with no
// control characters but (when multiline) newline and tab. CRLF and lone CR
// become LF first, as browsers send CRLF from a textarea.
func clean(field, s string, max int, multiline bool) (string, error) {
	if !utf8.ValidString(s) {
		return "", &InputError{field, "is not valid UTF-8"}
	}
	if multiline {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	if n := utf8.RuneCountInString(s); n > max {
		return "", &InputError{field, fmt.Sprintf("has %d characters; at most %d are allowed", n, max)}
	}
	for _, r := range s {
		if multiline && (r == '\n' || r == '\t') {
			continue
		}
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return "", &InputError{field, fmt.Sprintf("contains the control character %U", r)}
		}
	}
	return s, nil
}

// quote quotes s for an error message, shortened to keep messages small.
func quote(s string) string {
	if utf8.RuneCountInString(s) > 40 {
		s = string([]rune(s)[:40]) + "…"
	}
	return strconv.Quote(s)
}
