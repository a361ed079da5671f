package resultfile

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"bbslab/loadtest"
)

// within reports whether got is within frac of want.
func within(got, want, frac float64) bool {
	return got >= want*(1-frac) && got <= want*(1+frac)
}

// TestJTLRoundTrip runs the engine with a JTL file and reads the file
// back: the requests, successes, clients, errors and labels it holds are
// the run's, and Read takes it for a JTL file too.
func TestJTLRoundTrip(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>hello</html>")) }))
	defer srv.Close()
	jtlPath := filepath.Join(t.TempDir(), "run.jtl")
	jf, err := os.Create(jtlPath)
	if err != nil {
		t.Fatal(err)
	}
	res, err := loadtest.Run(t.Context(), loadtest.Settings{
		Requests: []loadtest.Request{{Label: "home", URL: srv.URL, Weight: 3}, {Label: "missing, really", URL: srv.URL + "/x", Expect: 404}},
		Clients:  3, MaxRequests: 300, JTL: jf, Seed: 1,
	})
	jf.Close()
	if err != nil {
		t.Fatal(err)
	}
	jr, err := ReadJTL(jtlPath)
	if err != nil {
		t.Fatal(err)
	}
	if jr.Name != "run" || jr.Tool != "jmeter-jtl" || jr.Total.Requests != 300 || jr.Total.Successes != res.Total.Successes || jr.Settings.Clients != 3 {
		t.Errorf("JTL read back: %q by %q, %d requests, %d successes, %d clients; want run by jmeter-jtl, 300, %d, 3", jr.Name, jr.Tool, jr.Total.Requests, jr.Total.Successes, jr.Settings.Clients, res.Total.Successes)
	}
	if jr.Total.ErrorKinds["status"] != res.Total.Errors {
		t.Errorf("JTL read back errors %v; want %d status errors", jr.Total.ErrorKinds, res.Total.Errors)
	}
	for i, l := range jr.Labels {
		if l.Label != res.Labels[i].Label || l.Requests != res.Labels[i].Requests {
			t.Errorf("JTL label %d = %q %d; want %q %d", i, l.Label, l.Requests, res.Labels[i].Label, res.Labels[i].Requests)
		}
	}
	var inSeries int64
	for _, row := range jr.Series {
		inSeries += row.Successes + row.Errors
	}
	if inSeries != 300 {
		t.Errorf("JTL series holds %d requests; want 300", inSeries)
	}
	runs, err := Read(jtlPath)
	if err != nil || len(runs) != 1 || runs[0].Total.Requests != 300 {
		t.Errorf("Read(jtl) = %d runs, %v; want the one run of 300 requests", len(runs), err)
	}
}

// TestJTLEnvironmentBeside checks that the environment written beside a
// JTL file is read back with it, and that a JTL file without one reads
// with none.
func TestJTLEnvironmentBeside(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.jtl")
	line := "1700000000000,12,view,200,OK,t 1-1,text,true,,2100,120,1,1,http://h/,10,0,1\n"
	if err := os.WriteFile(p, []byte(loadtest.JTLHeader+"\n"+line), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := ReadJTL(p)
	if err != nil || r.Environment != nil {
		t.Fatalf("ReadJTL without an environment file = %+v, %v; want no environment", r, err)
	}
	if err := WriteJTLEnvironment(p, &loadtest.Environment{Server: map[string]json.RawMessage{"config": json.RawMessage(`{"pool":10}`)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(JTLEnvironmentPath(p)); err != nil {
		t.Fatal(err)
	}
	r, err = ReadJTL(p)
	var cfg bytes.Buffer
	if err == nil && r.Environment != nil {
		json.Compact(&cfg, r.Environment.Server["config"])
	}
	if err != nil || r.Environment == nil || cfg.String() != `{"pool":10}` {
		t.Errorf("ReadJTL with %s = %+v, %v; want its server's config", JTLEnvironmentPath(p), r.Environment, err)
	}
}

func TestReadJTLFromJMeter(t *testing.T) {
	// Lines as JMeter writes them, with a failure and a quoted field.
	const jtl = `timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect
1700000000000,12,view,200,OK,Thread Group 1-1,text,true,,2100,120,2,2,http://h/,10,0,1
1700000000500,30,view,200,OK,Thread Group 1-2,text,true,,2100,120,2,2,http://h/,28,0,0
1700000001000,5,post,500,"Internal, error",Thread Group 1-1,text,false,,300,200,2,2,http://h/p,5,0,0
1700000001900,100,post,Non HTTP response code: java.net.ConnectException,Non HTTP response message: refused,Thread Group 1-2,text,false,,0,0,2,2,http://h/p,0,0,100
`
	p := filepath.Join(t.TempDir(), "jm.jtl")
	os.WriteFile(p, []byte(jtl), 0o644)
	r, err := ReadJTL(p)
	if err != nil {
		t.Fatal(err)
	}
	if r.Total.Requests != 4 || r.Total.Successes != 2 || r.Total.ErrorKinds["status"] != 1 || r.Total.ErrorKinds["connect"] != 1 {
		t.Errorf("total %+v; want 4 requests, 2 ok, 1 status and 1 connect error", r.Total)
	}
	if !within(r.Total.MaxMs, 30, 0.001) || r.Settings.Clients != 2 {
		t.Errorf("max %.3f ms clients %d; want 30 and 2", r.Total.MaxMs, r.Settings.Clients)
	}
	if r.MeasuredSeconds != 2 {
		t.Errorf("measured %.3f s; want 2 (first start to last end)", r.MeasuredSeconds)
	}
}

func TestJTLKeepsStatusCodesAndKinds(t *testing.T) {
	jtl := loadtest.JTLHeader + "\n" +
		"1000,5,x,200,OK,t 1-1,text,true,,10,5,1,1,http://h/,1,0,0\n" +
		"1001,5,x,503,Service Unavailable,t 1-1,text,false,,10,5,1,1,http://h/,1,0,0\n" +
		"1002,5,x,Non HTTP response code: timeout,timeout,t 1-1,text,false,read timeout,0,5,1,1,http://h/,0,0,0\n" +
		"1003,9,x,Non HTTP response code: cutoff,Non HTTP response message: ,t 1-1,text,false,cutoff error,0,5,1,1,http://h/,0,0,0\n"
	r, err := parseJTL(strings.NewReader(jtl))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Total.StatusCodes; got["200"] != 1 || got["503"] != 1 || got["0"] != 2 ||
		r.Total.ErrorSet["503 Service Unavailable"] != 1 || r.Total.ErrorSet["read timeout"] != 1 {
		t.Errorf("JTL: status codes %v, error set %v; want 200:1 503:1 0:2, \"503 Service Unavailable\" and \"read timeout\"", got, r.Total.ErrorSet)
	}
	if got := r.Total.ErrorKinds; got["status"] != 1 || got["timeout"] != 1 || got["cutoff"] != 1 {
		t.Errorf("JTL: errors by kind %v; want status, timeout and cutoff 1 each", got)
	}
}
