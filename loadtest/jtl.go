package loadtest

import (
	"bufio"
	"cmp"
	"io"
	"strconv"
	"strings"
	"sync"
)

// JTLHeader is the header line of JMeter's CSV results format, in JMeter's
// default column order.
const JTLHeader = "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect"

// jtlSink writes one JTL line per measured request; clients format into
// their own buffer and lock only to copy it.
type jtlSink struct {
	mu      sync.Mutex
	w       *bufio.Writer
	err     error
	clients int
	group   string
	pool    sync.Pool
}

func newJTLSink(w io.Writer, clients int, name string) *jtlSink {
	s := &jtlSink{w: bufio.NewWriterSize(w, 64<<10), clients: clients, group: cmp.Or(name, "clients")}
	s.pool.New = func() any { b := make([]byte, 0, 256); return &b }
	s.w.WriteString(JTLHeader + "\n")
	return s
}

// write formats s, timed from its intended start like the latencies.
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
