package machine

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
)

func processCPUOf(pid int) (time.Duration, error) {
	return procRoot("/proc").processCPU(pid)
}

// processCPU reads the user + system CPU time of process pid from
// PID/stat (utime and stime, fields 14 and 15).
func (r procRoot) processCPU(pid int) (time.Duration, error) {
	name := fmt.Sprintf("%d/stat", pid)
	b, err := r.read(name)
	if err != nil {
		return 0, err
	}
	return parsePIDStat(b, name)
}

// parsePIDStat reads utime + stime from a /proc/PID/stat line.
func parsePIDStat(b []byte, name string) (time.Duration, error) {
	// The command name (field 2) is in parentheses and may hold spaces:
	// count the fields after its closing parenthesis, field 3 first.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("%s: unexpected format", name)
	}
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 13 {
		return 0, fmt.Errorf("%s: unexpected format", name)
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("%s: utime %q, stime %q", name, fields[11], fields[12])
	}
	return time.Duration(utime+stime) * clockTick, nil
}
