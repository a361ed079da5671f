package grade

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// genericRows gathers a file's requests, the coarsest latency resolution (ns), the bytes received and the error
// messages with and without a response.
type genericRows struct {
	schema                 *genericSchema
	reqs                   []Request
	res                    float64
	bytes                  int64
	noResponse, withStatus map[string]int64
}

// readGeneric reads the generic format; a bad row is an error naming its line.
func readGeneric(path string, b []byte) ([]*Report, error) {
	b = bytes.TrimPrefix(b, []byte("\uFEFF"))
	start, body, skipped, err := genericPreamble(b)
	if err != nil {
		return nil, err
	}
	for i, l := range bytes.Split(body, []byte("\n")) {
		if isStartLine(string(l)) {
			return nil, fmt.Errorf("line %d: a \"# start=\" line after the data; put it before the header or the first object", skipped+i+1)
		}
	}
	g := &genericRows{noResponse: map[string]int64{}, withStatus: map[string]int64{}}
	if head := genericHead(body); len(head) > 0 && head[0] == '{' {
		err = g.readJSON(body, skipped)
	} else {
		err = g.readCSV(body, skipped)
	}
	if err != nil {
		return nil, err
	}
	return g.report(path, start)
}

// genericPreamble reads the comment lines before the data ("# start=RFC3339"
// gives the run's start) and returns the rest and the number of lines before it.
func genericPreamble(b []byte) (start time.Time, rest []byte, lines int, err error) {
	for len(b) > 0 {
		line, after, _ := bytes.Cut(b, []byte("\n"))
		l := strings.TrimSpace(string(line))
		if l != "" && l[0] != '#' {
			break
		}
		lines++
		b = after
		if !isStartLine(l) {
			continue // a comment
		}
		_, val, _ := strings.Cut(l, "=")
		if !start.IsZero() {
			return start, nil, 0, fmt.Errorf("line %d: a second \"# start=\" line; give the run's start once", lines)
		}
		if start, err = time.Parse(time.RFC3339Nano, strings.TrimSpace(val)); err != nil {
			return start, nil, 0, fmt.Errorf("line %d: start %q: want the run's start in RFC 3339 with a zone, e.g. # start=2026-12-03T09:00:00.000Z", lines, strings.TrimSpace(val))
		}
	}
	return start, b, lines, nil
}

func isStartLine(l string) bool {
	l = strings.TrimSpace(l)
	key, _, ok := strings.Cut(strings.TrimPrefix(l, "#"), "=")
	return strings.HasPrefix(l, "#") && ok && strings.TrimSpace(key) == "start"
}

// readCSV reads a header row and one request a row; skipped lines came before body.
func (g *genericRows) readCSV(body []byte, skipped int) error {
	cr := csv.NewReader(bytes.NewReader(body))
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	lineErr := func(err error) error {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return fmt.Errorf("line %d: %v", pe.Line+skipped, pe.Err)
		}
		return err
	}
	header, err := cr.Read()
	if err != nil {
		return lineErr(err)
	}
	for i := range header {
		header[i] = strings.TrimSpace(header[i])
	}
	hl, _ := cr.FieldPos(0)
	if g.schema, err = newGenericSchema(header); err != nil {
		return fmt.Errorf("line %d (the header): %w", hl+skipped, err)
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return lineErr(err)
		}
		line, _ := cr.FieldPos(0)
		line += skipped
		if len(rec) != len(header) {
			return fmt.Errorf("line %d: %d fields; the header has %d (%s)", line, len(rec), len(header), strings.Join(header, ","))
		}
		vals := make(map[string]string, len(rec))
		for i, v := range rec {
			vals[header[i]] = strings.TrimSpace(v)
		}
		if err := g.add(vals); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
	}
}

// readJSON reads one JSON object a line.
func (g *genericRows) readJSON(body []byte, skipped int) error {
	err := eachLine(bytes.NewReader(body), func(n int, l []byte) error {
		if l[0] == '#' {
			return nil
		}
		vals, names, err := jsonValues(l)
		if err == nil {
			err = g.lineKeys(names)
		}
		if err == nil {
			err = g.add(vals)
		}
		if err != nil {
			return fmt.Errorf("line %d: %w", skipped+n, err)
		}
		return nil
	})
	if err == nil && g.schema == nil {
		err = errors.New("no JSON object")
	}
	return err
}

// lineKeys checks a JSON line's keys: the first line's make the schema; a
// later line may not name another send time or latency.
func (g *genericRows) lineKeys(names []string) error {
	if g.schema == nil {
		s, err := newGenericSchema(names)
		g.schema = s
		return err
	}
	for _, n := range names {
		c, err := parseGenericCol(n)
		if err != nil {
			return err
		}
		if (c.kind == colStart || c.kind == colOffset) && n != g.schema.send.name ||
			c.kind == colLatency && n != g.schema.latency.name {
			return fmt.Errorf("%s, but the first line gave %s and %s: one send-time and one latency key per file", n, g.schema.send.name, g.schema.latency.name)
		}
	}
	return nil
}

// jsonValues decodes a line's object: values as text (null as empty) and sorted keys.
func jsonValues(l []byte) (map[string]string, []string, error) {
	if l[0] != '{' {
		return nil, nil, errors.New("want one JSON object a line, {...}")
	}
	dec := json.NewDecoder(bytes.NewReader(l))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, nil, fmt.Errorf("want one JSON object a line: %s", strings.TrimPrefix(fmt.Sprint(err), "json: "))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, errors.New("want one JSON object a line: more after the object")
	}
	vals := map[string]string{}
	for k, v := range m {
		switch v := v.(type) {
		case nil:
			vals[k] = ""
		case string:
			vals[k] = strings.TrimSpace(v)
		case json.Number:
			vals[k] = v.String()
		default:
			return nil, nil, fmt.Errorf("%s: %v; want a number or a string", k, v)
		}
	}
	return vals, slices.Sorted(maps.Keys(m)), nil
}

func (g *genericRows) add(vals map[string]string) error {
	s := g.schema
	var q Request
	if v := vals["status"]; v != "" {
		st, err := strconv.Atoi(v)
		if err != nil || (st != 0 && (st < 100 || st > 599)) {
			return fmt.Errorf("status %q: want an HTTP status 100-599, or 0 or empty for no response", v)
		}
		q.Status = st
	}
	msg := vals["error"]
	if q.Status == 0 && msg == "" {
		return errors.New("status 0 or empty (no response) needs an error saying why")
	}
	switch v := vals[s.latency.name]; {
	case v == "" && q.Status > 0:
		return fmt.Errorf("%s empty: a response (status %d) needs its latency", s.latency.name, q.Status)
	case v != "":
		lat, res, err := parseLength(s.latency, v)
		if err != nil {
			return err
		}
		q.Latency, g.res = lat, math.Max(g.res, res)
	}
	v := vals[s.send.name]
	var err error
	switch {
	case v == "":
		return fmt.Errorf("%s empty: every request needs its send time", s.send.name)
	case s.send.kind == colOffset:
		q.At, _, err = parseLength(s.send, v)
	case s.send.unit == 0:
		if q.Sent, err = time.Parse(time.RFC3339Nano, v); err != nil {
			err = fmt.Errorf("%s %q: want RFC 3339 with a zone, e.g. 2026-12-03T09:00:00.123456Z", s.send.name, v)
		}
	default:
		q.Sent, err = parseEpoch(s.send, v)
	}
	if err != nil {
		return err
	}
	if v := vals["bytes"]; v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("bytes %q: want a whole number of bytes, 0 or more", v)
		}
		g.bytes += n
	}
	switch {
	case q.Status == 0:
		g.noResponse[msg]++
	case msg != "":
		g.withStatus[msg]++
	}
	g.reqs = append(g.reqs, q)
	return nil
}

// report builds the rows' Report, Relative for offsets without a "# start=" line.
func (g *genericRows) report(path string, start time.Time) ([]*Report, error) {
	s := g.schema
	if len(g.reqs) == 0 {
		return nil, errors.New("no requests after the header")
	}
	if s.send.kind == colStart && !start.IsZero() {
		return nil, fmt.Errorf("a \"# start=\" line gives the run's start for offsets, but the send times are absolute (%s): drop the line or give offsets", s.send.name)
	}
	r := &Report{Name: path, Format: "generic", Requests: g.reqs, Resolution: g.res / float64(time.Millisecond)}
	switch {
	case s.send.kind == colStart:
		r.fromSends()
	case start.IsZero():
		r.Relative = true
		r.Notes = append(r.Notes, "send times are offsets and no \"# start=\" line gives the run's start: placed by the truth's seconds, or by -window")
		r.fromRequests()
	default:
		r.Start = start
		r.fromRequests()
	}
	if len(g.noResponse) > 0 {
		r.Notes = append(r.Notes, "no response: "+countList(g.noResponse))
	}
	if len(g.withStatus) > 0 {
		r.Notes = append(r.Notes, "responses with an error: "+countList(g.withStatus))
	}
	if slices.ContainsFunc(s.cols, func(c genericCol) bool { return c.kind == colBytes }) {
		r.Notes = append(r.Notes, fmt.Sprintf("bytes received: %d", g.bytes))
	}
	if len(s.extra) > 0 {
		r.Notes = append(r.Notes, "carried, not graded: "+strings.Join(s.extra, ", "))
	}
	return []*Report{r}, nil
}

// countList prints the first five counts by message, most first.
func countList(m map[string]int64) string {
	keys := slices.SortedFunc(maps.Keys(m), func(a, b string) int {
		return cmp.Or(cmp.Compare(m[b], m[a]), strings.Compare(a, b))
	})
	var parts []string
	for i, k := range keys {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more messages", len(keys)-5))
			break
		}
		parts = append(parts, fmt.Sprintf("%d x %q", m[k], k))
	}
	return strings.Join(parts, ", ")
}
