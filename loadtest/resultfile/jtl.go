package resultfile

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"bbslab/loadtest"
)

// ReadJTL reads a JMeter CSV file and the environment beside it into a Result named after it.
func ReadJTL(path string) (*loadtest.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read jtl: %w", err)
	}
	defer f.Close()
	return readJTL(path, f)
}

func readJTL(path string, r io.Reader) (*loadtest.Result, error) {
	res, err := parseJTL(r)
	if err != nil {
		return nil, fmt.Errorf("read jtl %s: %w", path, err)
	}
	res.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if res.Environment, err = readJTLEnvironment(path); err != nil {
		return nil, err
	}
	return res, nil
}

// JTLEnvironmentPath is where the environment of a JTL file's run is kept:
// beside it, since JMeter's CSV takes no comment line.
func JTLEnvironmentPath(jtlPath string) string { return jtlPath + ".env.json" }

// WriteJTLEnvironment writes env beside the JTL file at jtlPath.
func WriteJTLEnvironment(jtlPath string, env *loadtest.Environment) error {
	b, err := json.MarshalIndent(env, "", "  ")
	if err == nil {
		err = os.WriteFile(JTLEnvironmentPath(jtlPath), append(b, '\n'), 0o644)
	}
	if err != nil {
		return fmt.Errorf("jtl environment: %w", err)
	}
	return nil
}

// readJTLEnvironment reads the environment beside a JTL file, if any.
func readJTLEnvironment(jtlPath string) (*loadtest.Environment, error) {
	p := JTLEnvironmentPath(jtlPath)
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read jtl environment: %w", err)
	}
	var env loadtest.Environment
	if err := json.Unmarshal(b, &env); err != nil {
		return nil, fmt.Errorf("read jtl environment %s: %w", p, err)
	}
	return &env, nil
}

// EachJTLSample calls f with each sample line of JMeter CSV results from r: its
// line number, fields, and col, reading a column by name (false when absent). The
// columns are the header's, which must have need, or loadtest.JTLHeader's.
func EachJTLSample(r io.Reader, need []string, f func(line int, rec []string, col func(string) (string, bool)) error) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	cols := strings.Split(loadtest.JTLHeader, ",")
	for line := 1; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if line == 1 && len(rec) > 0 && rec[0] == "timeStamp" {
			cols = slices.Clone(rec)
			for _, c := range need {
				if !slices.Contains(cols, c) {
					return fmt.Errorf("header lacks column %q", c)
				}
			}
			continue
		}
		col := func(name string) (string, bool) {
			if i := slices.Index(cols, name); i >= 0 && i < len(rec) {
				return rec[i], true
			}
			return "", false
		}
		if err := f(line, rec, col); err != nil {
			return err
		}
	}
}

func parseJTL(r io.Reader) (*loadtest.Result, error) {
	sum := &jtlSum{first: math.MaxInt64, secs: map[int64]*loadtest.SecondRow{}}
	err := EachJTLSample(r, []string{"timeStamp", "elapsed", "label", "success"}, func(line int, _ []string, col func(string) (string, bool)) error {
		get := func(name string) string {
			v, _ := col(name)
			return v
		}
		if err := sum.add(get); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(sum.secs) == 0 {
		return nil, errors.New("no samples")
	}
	return sum.result(), nil
}

// jtlSum adds up a JTL file's lines by label and by the second they ended.
type jtlSum struct {
	labels      loadtest.Tallies
	first, last int64 // the earliest start and latest end, epoch ms
	clients     int
	secs        map[int64]*loadtest.SecondRow
}

func (s *jtlSum) add(get func(string) string) error {
	ts, err1 := strconv.ParseInt(get("timeStamp"), 10, 64)
	el, err2 := strconv.ParseInt(get("elapsed"), 10, 64)
	if err1 != nil || err2 != nil {
		return errors.New("bad timeStamp or elapsed")
	}
	l := s.labels.Of(get("label"))
	n, _ := strconv.ParseInt(get("bytes"), 10, 64)
	sn, _ := strconv.ParseInt(get("sentBytes"), 10, 64)
	if t, err := strconv.Atoi(get("allThreads")); err == nil && t > s.clients {
		s.clients = t
	}
	end := ts + el
	s.first = min(s.first, ts)
	s.last = max(s.last, end)
	sec := s.second(end / 1000)
	sec.Bytes += n
	code := get("responseCode")
	if _, err := strconv.Atoi(code); err != nil || len(code) != 3 {
		code = "0" // "Non HTTP response code: ...": no response
	}
	if strings.EqualFold(get("success"), "true") {
		d := time.Duration(el) * time.Millisecond
		l.Success(d, code, n, sn)
		sec.Histogram.Record(d)
		sec.Successes++
		return nil
	}
	text := cmp.Or(get("failureMessage"), strings.TrimSpace(get("responseCode")+" "+get("responseMessage")))
	l.Failure(jtlKind(get("responseCode"), get("failureMessage")), text, code, n, sn)
	sec.Errors++
	return nil
}

// second returns the second k (epoch seconds) of the series, new if need
// be; seconds well behind the newest are compacted.
func (s *jtlSum) second(k int64) *loadtest.SecondRow {
	sec := s.secs[k]
	if sec == nil {
		sec = &loadtest.SecondRow{Histogram: loadtest.NewHistogram()}
		s.secs[k] = sec
		if old := s.secs[k-10]; old != nil {
			old.Histogram.Compact()
		}
	}
	return sec
}

// result is the Result of the lines read, over the first start to the last end.
func (s *jtlSum) result() *loadtest.Result {
	seconds := float64(s.last-s.first) / 1000
	res := &loadtest.Result{
		Schema: loadtest.SchemaVersion, Tool: "jmeter-jtl",
		Start: time.UnixMilli(s.first), MeasureStart: time.UnixMilli(s.first), End: time.UnixMilli(s.last),
		MeasuredSeconds: seconds,
	}
	res.Settings.Clients = s.clients
	res.Labels, res.Total = s.labels.Stats(func(string) int { return s.clients }, s.clients, seconds)
	for _, k := range slices.Sorted(maps.Keys(s.secs)) {
		row := s.secs[k]
		row.T, row.Throughput = float64(k*1000+1000-s.first)/1000, float64(row.Successes)
		row.FillLatency()
		res.Series = append(res.Series, *row)
	}
	return res
}

// jtlKind maps a failed JTL line to an error kind.
func jtlKind(code, msg string) string {
	if k, ok := strings.CutPrefix(code, "Non HTTP response code: "); ok {
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
