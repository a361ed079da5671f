package contract

import (
	"encoding/json"
	"fmt"
	"strconv"

	"bbslab/diskbench"
	"bbslab/loadtest/watch"
)

// disk decodes the output of bbs diskbench -json into the report's table
// and verdict; output of another shape gives nil.
func disk(raw json.RawMessage) *watch.DiskTable {
	if len(raw) == 0 {
		return nil
	}
	var d diskbench.Result
	if json.Unmarshal(raw, &d) != nil || len(d.Stats) == 0 {
		return nil
	}
	t := &watch.DiskTable{
		Caption: fmt.Sprintf("%s, %d rounds, grade %s (times in ns)", d.Dir, d.N, d.Grade.Name),
		Head:    []string{"op", "avg", "median", "min", "max"},
	}
	for _, st := range d.Stats {
		t.Rows = append(t.Rows, []string{st.Op, strconv.FormatInt(st.AvgNS, 10), strconv.FormatInt(st.MedianNS, 10),
			strconv.FormatInt(st.MinNS, 10), strconv.FormatInt(st.MaxNS, 10)})
	}
	v := fmt.Sprintf("Disk under the database (%s, %d rounds)", d.Dir, d.N)
	if d.Grade.Name != "" {
		v += ": graded " + d.Grade.Name
	}
	if st := d.Stat(diskbench.OpFsync); st.Op != "" {
		v += fmt.Sprintf("; fsync took %.0f µs on average (max %.0f µs), the floor of an SQLite commit", float64(st.AvgNS)/1e3, float64(st.MaxNS)/1e3)
	}
	t.Verdict = v + "."
	return t
}
