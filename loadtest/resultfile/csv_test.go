package resultfile

import (
	"bytes"
	"testing"

	"bbslab/loadtest"
)

func TestSeriesCSV(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSeriesCSV(&b, []loadtest.SecondRow{{T: 1, Successes: 5, Throughput: 5, P95Ms: 1.25, P99Ms: 1.5}}); err != nil {
		t.Fatal(err)
	}
	want := "t,warmup,successes,errors,throughput,bytes,mean_ms,p50_ms,p90_ms,p95_ms,p99_ms,max_ms\n1,false,5,0,5,0,0,0,0,1.25,1.5,0\n"
	if b.String() != want {
		t.Errorf("csv = %q; want %q", b.String(), want)
	}
}
