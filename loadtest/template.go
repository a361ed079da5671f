package loadtest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
)

// A template is a parameter value with placeholders for unique values:
//
//	{{seq}}         a number unique across the whole run (1, 2, 3, ...)
//	{{client}}      the client number (1..Clients)
//	{{rand A B}}    a uniform random integer in [A, B]
//
// Literal text is escaped once when compiled; placeholders render digits.
type template struct {
	segs []segment
}

type segKind uint8

const (
	segLiteral segKind = iota
	segSeq
	segClient
	segRand
)

type segment struct {
	kind   segKind
	lit    string
	lo, hi int64
}

type renderState struct {
	seq    *atomic.Int64
	client int
	rng    *rand.Rand
}

// compileTemplate parses s. escape, when set, is applied to literal text.
func compileTemplate(s string, escape func(string) string) (template, error) {
	var t template
	for s != "" {
		i := strings.Index(s, "{{")
		if i < 0 {
			t.addLit(s, escape)
			break
		}
		t.addLit(s[:i], escape)
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			return t, fmt.Errorf("unclosed {{ in %q", s)
		}
		f := strings.Fields(s[i+2 : i+j])
		s = s[i+j+2:]
		switch {
		case len(f) == 1 && f[0] == "seq":
			t.segs = append(t.segs, segment{kind: segSeq})
		case len(f) == 1 && f[0] == "client":
			t.segs = append(t.segs, segment{kind: segClient})
		case len(f) == 3 && f[0] == "rand":
			lo, err1 := strconv.ParseInt(f[1], 10, 64)
			hi, err2 := strconv.ParseInt(f[2], 10, 64)
			if err1 != nil || err2 != nil || hi < lo {
				return t, fmt.Errorf("bad {{rand A B}} placeholder %q: want integers A <= B", strings.Join(f, " "))
			}
			t.segs = append(t.segs, segment{kind: segRand, lo: lo, hi: hi})
		default:
			return t, fmt.Errorf("unknown placeholder {{%s}} (want seq, client or rand A B)", strings.Join(f, " "))
		}
	}
	return t, nil
}

func (t *template) addLit(s string, escape func(string) string) {
	if s == "" {
		return
	}
	if escape != nil {
		s = escape(s)
	}
	t.segs = append(t.segs, segment{kind: segLiteral, lit: s})
}

func (t *template) static() bool {
	return !slices.ContainsFunc(t.segs, func(s segment) bool { return s.kind != segLiteral })
}

func (t *template) render(dst []byte, st *renderState) []byte {
	for i := range t.segs {
		s := &t.segs[i]
		switch s.kind {
		case segLiteral:
			dst = append(dst, s.lit...)
		case segSeq:
			dst = strconv.AppendInt(dst, st.seq.Add(1), 10)
		case segClient:
			dst = strconv.AppendInt(dst, int64(st.client), 10)
		case segRand:
			dst = strconv.AppendInt(dst, s.lo+st.rng.Int64N(s.hi-s.lo+1), 10)
		}
	}
	return dst
}
