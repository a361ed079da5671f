package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"bbslab/internal/cli"
)

func TestRequestsBuild(t *testing.T) {
	dir := t.TempDir()
	empty, body := filepath.Join(dir, "empty"), filepath.Join(dir, "body.json")
	os.WriteFile(empty, nil, 0o644)
	os.WriteFile(body, []byte(`{"a":1}`), 0o644)
	for _, tc := range []struct {
		q    Requests
		want string // a usage error containing it; "" for none
	}{
		{Requests{}, "give -url or -scenario"},
		{Requests{URLs: cli.List{"http://h/"}, Scenario: "s.toml"}, "not both"},
		{Requests{Scenario: "s.toml", Method: "PUT"}, "-method goes with -url"},
		{Requests{Scenario: "s.toml", Expect: 200}, "-H and -expect go with -url"},
		{Requests{URLs: cli.List{"http://h/"}, Form: "a=1", Body: "x"}, "give one of -form, -body and -body-file"},
		{Requests{URLs: cli.List{"http://h/"}, BodyFile: empty}, "the file is empty"},
		{Requests{URLs: cli.List{"http://h/"}, Headers: cli.List{"X-A: 1", "x-a: 2"}}, `header "x-a" given twice`},
		{Requests{URLs: cli.List{"http://h/"}, Headers: cli.List{"nocolon"}}, "-H:"},
		{Requests{URLs: cli.List{"http://h/a", "http://h/b"}, Method: "PUT", BodyFile: body, Headers: cli.List{"X-A: 1"}, Expect: 201, Contains: "ok"}, ""},
	} {
		rs, err := tc.q.Build()
		if tc.want != "" {
			if err == nil || !strings.Contains(err.Error(), tc.want) || cli.ExitCode(err) != cli.ExitUsage {
				t.Errorf("Build(%+v) = %v; want a usage error with %q", tc.q, err, tc.want)
			}
			continue
		}
		if err != nil || len(rs) != 2 || rs[1].URL != "http://h/b" || rs[0].Method != "PUT" || rs[0].Body != `{"a":1}` ||
			rs[0].Headers["X-A"] != "1" || rs[0].Expect != 201 || rs[0].Contains != "ok" {
			t.Errorf("Build(%+v) = %+v, %v; want two PUTs with the file's body, the header and the checks", tc.q, rs, err)
		}
	}
}
