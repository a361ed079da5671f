package loadtest

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// JTLHeader is the header line of JMeter's CSV results format, in JMeter's
// default column order.
const JTLHeader = "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect"

// jtlSink writes one JTL line per measured request. Clients format into
// their own buffer and hold the lock only to copy it.
type jtlSink struct {
	mu      sync.Mutex
	w       *bufio.Writer
	err     error
	clients int
	group   string
	pool    sync.Pool
}

func newJTLSink(w io.Writer, clients int, name string) *jtlSink {
	if name == "" {
		name = "clients"
	}
	s := &jtlSink{w: bufio.NewWriterSize(w, 64<<10), clients: clients, group: name}
	s.pool.New = func() any { b := make([]byte, 0, 256); return &b }
	s.w.WriteString(JTLHeader + "\n")
	return s
}

// write formats s. In the rate and open models timeStamp and elapsed count
// from the intended start, like the latency figures.
func (j *jtlSink) write(s *record, req *compiled) {
	bp := j.pool.Get().(*[]byte)
	b := (*bp)[:0]
	b = strconv.AppendInt(b, s.intended.UnixMilli(), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, s.end.Sub(s.intended).Milliseconds(), 10)
	b = append(b, ',')
	b = appendCSV(b, req.label)
	b = append(b, ',')
	ok := s.kind == KindOK
	switch s.kind {
	case KindConnect, KindTimeout, KindIO, KindCutoff:
		b = append(b, "Non HTTP response code: "...)
		b = append(b, s.kind.String()...)
		b = append(b, ',')
		msg := ""
		if s.err != nil {
			msg = s.err.Error()
		}
		b = appendCSV(b, "Non HTTP response message: "+msg)
	default:
		b = strconv.AppendInt(b, int64(s.status), 10)
		b = append(b, ',')
		b = appendCSVBytes(b, s.reason)
	}
	b = append(b, ',')
	b = appendCSV(b, j.group)
	b = append(b, " 1-"...)
	b = strconv.AppendInt(b, int64(s.client+1), 10)
	b = append(b, ",text,"...)
	b = strconv.AppendBool(b, ok)
	b = append(b, ',')
	switch s.kind {
	case KindStatus:
		b = append(b, "Unexpected status code"...)
	case KindBody:
		b = appendCSV(b, "Body does not contain "+strconv.Quote(string(req.contains)))
	case KindOK:
	default:
		b = appendCSV(b, s.kind.String()+" error")
	}
	b = append(b, ',')
	b = strconv.AppendInt(b, s.recv, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, s.sentN, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(j.clients), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(j.clients), 10)
	b = append(b, ',')
	b = appendCSV(b, req.url)
	b = append(b, ',')
	if !s.first.IsZero() {
		b = strconv.AppendInt(b, s.first.Sub(s.intended).Milliseconds(), 10)
	} else {
		b = append(b, '0')
	}
	b = append(b, ",0,"...)
	b = strconv.AppendInt(b, s.connect.Milliseconds(), 10)
	b = append(b, '\n')
	j.mu.Lock()
	if j.err == nil {
		_, j.err = j.w.Write(b)
	}
	j.mu.Unlock()
	*bp = b
	j.pool.Put(bp)
}

func (j *jtlSink) flush() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return j.err
	}
	return j.w.Flush()
}

// appendCSV appends a CSV field, quoted when needed.
func appendCSV(b []byte, s string) []byte {
	if !strings.ContainsAny(s, ",\"\r\n") {
		return append(b, s...)
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}

func appendCSVBytes(b, s []byte) []byte {
	for _, c := range s {
		if c == ',' || c == '"' || c == '\r' || c == '\n' {
			return appendCSV(b, string(s))
		}
	}
	return append(b, s...)
}

// ReadJTL reads a JMeter CSV results file (with a header line, or without
// one in JMeter's default column order) into a Result: per-label histograms
// (millisecond resolution, as JTL records), the per-second series, and
// throughput over the span from the first start to the last end. Clients is
// the largest allThreads. There is no generator cost in a JTL file.
func ReadJTL(path string) (*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read jtl: %w", err)
	}
	defer f.Close()
	res, err := parseJTL(f)
	if err != nil {
		return nil, fmt.Errorf("read jtl %s: %w", path, err)
	}
	res.Name = jtlName(path)
	env, err := readJTLEnvironment(path)
	if err != nil {
		return nil, err
	}
	res.Environment = env
	return res, nil
}

// JTLEnvironmentPath is where the environment of a JTL file's run is kept:
// beside it, as FILE.env.json. JMeter's CSV reader takes the first line
// for the header and every other line for a sample, so the file itself
// cannot carry a comment; JMeter ignores the file beside it.
func JTLEnvironmentPath(jtlPath string) string { return jtlPath + ".env.json" }

// WriteJTLEnvironment writes env beside the JTL file at jtlPath.
func WriteJTLEnvironment(jtlPath string, env *Environment) error {
	b, err := json.MarshalIndent(env, "", "  ")
	if err != nil {
		return fmt.Errorf("jtl environment: %w", err)
	}
	p := JTLEnvironmentPath(jtlPath)
	if err := os.WriteFile(p, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("jtl environment: %w", err)
	}
	return nil
}

// readJTLEnvironment reads the environment beside a JTL file; nil when
// there is none (a file JMeter wrote).
func readJTLEnvironment(jtlPath string) (*Environment, error) {
	p := JTLEnvironmentPath(jtlPath)
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read jtl environment: %w", err)
	}
	var env Environment
	if err := json.Unmarshal(b, &env); err != nil {
		return nil, fmt.Errorf("read jtl environment %s: %w", p, err)
	}
	return &env, nil
}

// jtlName names the run of a JTL file after the file:
// results/run1.jtl is run1.
func jtlName(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

func parseJTL(r io.Reader) (*Result, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	cols := map[string]int{}
	for i, c := range strings.Split(JTLHeader, ",") {
		cols[c] = i
	}
	labels := map[string]*Tally{}
	var order []string
	var first, last int64 = math.MaxInt64, 0
	clients := 0
	type sec struct {
		h       *Histogram
		ok, err int64
		recv    int64
	}
	secs := map[int64]*sec{}
	line := 0
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		line++
		if line == 1 && len(rec) > 0 && rec[0] == "timeStamp" {
			cols = map[string]int{}
			for i, c := range rec {
				cols[c] = i
			}
			for _, need := range []string{"timeStamp", "elapsed", "label", "success"} {
				if _, ok := cols[need]; !ok {
					return nil, fmt.Errorf("header lacks column %q", need)
				}
			}
			continue
		}
		get := func(name string) string {
			if i, ok := cols[name]; ok && i < len(rec) {
				return rec[i]
			}
			return ""
		}
		ts, err1 := strconv.ParseInt(get("timeStamp"), 10, 64)
		el, err2 := strconv.ParseInt(get("elapsed"), 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("line %d: bad timeStamp or elapsed", line)
		}
		name := get("label")
		l := labels[name]
		if l == nil {
			l = NewTally()
			labels[name] = l
			order = append(order, name)
		}
		n, _ := strconv.ParseInt(get("bytes"), 10, 64)
		sn, _ := strconv.ParseInt(get("sentBytes"), 10, 64)
		if t, err := strconv.Atoi(get("allThreads")); err == nil && t > clients {
			clients = t
		}
		end := ts + el
		first = min(first, ts)
		last = max(last, end)
		s := secs[end/1000]
		if s == nil {
			s = &sec{h: NewHistogram()}
			secs[end/1000] = s
			// Lines come roughly in time order: keep seconds well behind
			// the newest compressed so a long file needs little memory.
			if old := secs[end/1000-10]; old != nil {
				old.h.Compact()
			}
		}
		s.recv += n
		code := get("responseCode")
		if _, err := strconv.Atoi(code); err != nil || len(code) != 3 {
			code = "0" // "Non HTTP response code: ...": no response
		}
		if strings.EqualFold(get("success"), "true") {
			d := time.Duration(el) * time.Millisecond
			l.Success(d, code, n, sn)
			s.h.Record(d)
			s.ok++
		} else {
			text := get("failureMessage")
			if text == "" {
				text = strings.TrimSpace(get("responseCode") + " " + get("responseMessage"))
			}
			l.Failure(jtlKind(get("responseCode"), get("failureMessage")), text, code, n, sn)
			s.err++
		}
	}
	if len(labels) == 0 {
		return nil, errors.New("no samples")
	}
	seconds := float64(last-first) / 1000
	res := &Result{
		Schema: SchemaVersion, Tool: "jmeter-jtl",
		Start: time.UnixMilli(first), MeasureStart: time.UnixMilli(first), End: time.UnixMilli(last),
		MeasuredSeconds: seconds,
	}
	res.Settings.Clients = clients
	all := NewTally()
	for _, name := range order {
		res.Labels = append(res.Labels, labels[name].Stats(name, clients, seconds))
		all.add(labels[name])
	}
	res.Total = all.Stats("TOTAL", clients, seconds)
	keys := make([]int64, 0, len(secs))
	for k := range secs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for _, k := range keys {
		s := secs[k]
		row := SecondRow{
			T: float64(k*1000+1000-first) / 1000, Successes: s.ok, Errors: s.err, Throughput: float64(s.ok), Bytes: s.recv,
			Histogram: s.h,
		}
		row.FillLatency()
		res.Series = append(res.Series, row)
	}
	return res, nil
}

// jtlKind maps a failed JTL line to an error kind.
func jtlKind(code, msg string) string {
	if strings.HasPrefix(code, "Non HTTP response code: ") {
		k := strings.TrimPrefix(code, "Non HTTP response code: ")
		switch {
		case k == "connect" || strings.Contains(k, "ConnectException") || strings.Contains(k, "NoRouteToHost"):
			return "connect"
		case k == "timeout" || strings.Contains(k, "Timeout"):
			return "timeout"
		case k == "cutoff":
			return "cutoff"
		}
		return "io"
	}
	if strings.HasPrefix(msg, "Body does not contain") || strings.Contains(msg, "Test failed") {
		return "body"
	}
	return "status"
}
