package bbs

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"bbslab/entity"
)

// encodeJSON writes v to buf as encoding/json's Encoder with HTML escaping
// writes it, newline included. A command's answer (jsonPosts) is written by
// appendPosts without reflection; anything else goes through encoding/json.
func encodeJSON(buf *bytes.Buffer, v any) error {
	if p, ok := v.(jsonPosts); ok && plainTimes(p) {
		buf.Write(appendPosts(buf.AvailableBuffer(), p))
		return nil
	}
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(true)
	return enc.Encode(v)
}

// appendPosts appends p as encoding/json encodes it (with HTML escaping,
// then a newline): the fixed shape of jsonPosts and entity.Post written by
// hand, because encoding/json walks each post by reflection, which cost a
// sizeable part of a JSON request's CPU time. TestAppendPostsMatchesEncodingJSON
// and FuzzAppendPosts hold the two to the same bytes, and fail when a field
// is added to either type without being added here.
func appendPosts(b []byte, p jsonPosts) []byte {
	b = append(b, `{"command":`...)
	b = appendJSONString(b, p.Command)
	if p.Posted != nil {
		b = append(b, `,"posted":`...)
		b = appendPost(b, p.Posted)
	}
	b = append(b, `,"posts":`...)
	if p.Posts == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range p.Posts {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendPost(b, &p.Posts[i])
		}
		b = append(b, ']')
	}
	if p.Cost != nil {
		b = append(b, `,"cost":`...)
		b = appendCost(b, p.Cost)
	}
	return append(b, "}\n"...)
}

// appendCost appends a request's cost as encoding/json encodes a jsonCost.
func appendCost(b []byte, c *jsonCost) []byte {
	b = append(b, `{"queries":`...)
	b = strconv.AppendInt(b, int64(c.Queries), 10)
	b = append(b, `,"acquires":`...)
	b = strconv.AppendInt(b, int64(c.Acquires), 10)
	b = append(b, `,"queue_ms":`...)
	b = appendJSONFloat(b, c.QueueMS)
	b = append(b, `,"acquire_ms":`...)
	b = appendJSONFloat(b, c.AcquireMS)
	b = append(b, `,"db_ms":`...)
	b = appendJSONFloat(b, c.DBMS)
	b = append(b, `,"net_ms":`...)
	b = appendJSONFloat(b, c.NetMS)
	b = append(b, `,"total_ms":`...)
	b = appendJSONFloat(b, c.TotalMS)
	return append(b, '}')
}

// appendJSONFloat appends a finite f as encoding/json writes a float64:
// the shortest decimal that reads back as f, in exponent form below 1e-6
// and from 1e21 up, with a one-digit negative exponent unpadded (1e-7,
// not 1e-07). A cost's durations are always finite.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendPost appends one post as encoding/json encodes an entity.Post.
func appendPost(b []byte, p *entity.Post) []byte {
	b = append(b, `{"no":`...)
	b = strconv.AppendInt(b, p.No, 10)
	b = append(b, `,"name":`...)
	b = appendJSONString(b, p.Name)
	b = append(b, `,"message":`...)
	b = appendJSONString(b, p.Message)
	b = append(b, `,"created_at":"`...)
	b = p.CreatedAt.AppendFormat(b, time.RFC3339Nano)
	return append(b, `"}`...)
}

// plainTimes reports whether every time in p is one time.Time.MarshalJSON
// writes as its RFC 3339 format: a year from 0 to 9999 and a zone offset in
// whole minutes (MarshalJSON fails on the others, and encoding/json should
// say so), and its cost has no NaN or infinity (which encoding/json
// refuses; durations never make one).
func plainTimes(p jsonPosts) bool {
	if c := p.Cost; c != nil {
		for _, f := range []float64{c.QueueMS, c.AcquireMS, c.DBMS, c.NetMS, c.TotalMS} {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return false
			}
		}
	}
	plain := func(t time.Time) bool {
		_, off := t.Zone()
		return t.Year() >= 0 && t.Year() <= 9999 && off%60 == 0
	}
	if p.Posted != nil && !plain(p.Posted.CreatedAt) {
		return false
	}
	for i := range p.Posts {
		if !plain(p.Posts[i].CreatedAt) {
			return false
		}
	}
	return true
}

// appendJSONString appends s as a JSON string the way encoding/json does
// with HTML escaping on: ", \ and control characters escaped (\b \f \n \r
// \t by name, the others as \u00XX), <, > and & as \u003c, \u003e and
// \u0026, invalid UTF-8 as \ufffd, and U+2028 and U+2029 as \u2028 and
// \u2029.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	// Most text is valid UTF-8 without U+2028 or U+2029: then only ASCII
	// bytes may need escaping, and one pass of utf8.ValidString is cheaper
	// than decoding each multi-byte character.
	if !utf8.ValidString(s) || strings.Contains(s, "\u2028") || strings.Contains(s, "\u2029") {
		return appendJSONStringSlow(b, s)
	}
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if plainByte[c] {
			continue
		}
		b = append(b, s[start:i]...)
		b = appendEscapedASCII(b, c)
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// plainByte tells the bytes of valid UTF-8 that encoding/json with HTML
// escaping copies as they are: ASCII from space up, except " \ < > &, and
// every byte of a multi-byte character.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = true
	}
	for _, c := range `"\<>&` {
		t[c] = false
	}
	return t
}()

// appendEscapedASCII appends the escape of an ASCII byte that is not a
// plainByte.
func appendEscapedASCII(b []byte, c byte) []byte {
	const hex = "0123456789abcdef"
	switch c {
	case '"', '\\':
		return append(b, '\\', c)
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
}

// appendJSONStringSlow is appendJSONString for text with invalid UTF-8 or
// U+2028 or U+2029, after the opening quote: it decodes each multi-byte
// character, as encoding/json does.
func appendJSONStringSlow(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if plainByte[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			b = appendEscapedASCII(b, c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
