package loadtest

import (
	"bufio"
	"bytes"
	"cmp"
	"io"
	"strconv"
	"strings"
	"sync"
)

// JTLHeader is the header line of JMeter's CSV results format.
const JTLHeader = "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect"

// jtlSink writes JTL lines; clients format into their own buffer and lock only to copy it.
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
	b := strconv.AppendInt((*bp)[:0], s.intended.UnixMilli(), 10)
	b = strconv.AppendInt(append(b, ','), s.end.Sub(s.intended).Milliseconds(), 10)
	b = appendCSV(append(b, ','), req.label)
	b = append(b, ',')
	switch s.kind {
	case KindConnect, KindTimeout, KindIO, KindCutoff:
		b = append(b, "Non HTTP response code: "...)
		b = append(append(b, s.kind.String()...), ',')
		msg := ""
		if s.err != nil {
			msg = s.err.Error()
		}
		b = appendCSV(b, "Non HTTP response message: "+msg)
	default:
		b = strconv.AppendInt(b, int64(s.status), 10)
		b = appendCSVBytes(append(b, ','), s.reason)
	}
	b = appendCSV(append(b, ','), j.group)
	b = strconv.AppendInt(append(b, " 1-"...), int64(s.client+1), 10)
	b = strconv.AppendBool(append(b, ",text,"...), s.kind == KindOK)
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
	for _, n := range [...]int64{s.recv, s.sentN, int64(j.clients), int64(j.clients)} {
		b = strconv.AppendInt(append(b, ','), n, 10)
	}
	b = appendCSV(append(b, ','), req.url)
	var latency int64 // to the first response byte
	if !s.first.IsZero() {
		latency = s.first.Sub(s.intended).Milliseconds()
	}
	b = strconv.AppendInt(append(b, ','), latency, 10)
	b = strconv.AppendInt(append(b, ",0,"...), s.connect.Milliseconds(), 10)
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
	if bytes.ContainsAny(s, ",\"\r\n") {
		return appendCSV(b, string(s))
	}
	return append(b, s...)
}
