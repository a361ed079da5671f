// Package testenv tells tests what the machine they run on provides, and
// refuses to let CI pass by skipping:
//
//	dsn := testenv.PostgresDSN(t) // BBS_TEST_POSTGRES_DSN, or skip (fail under CI=true)
//	testenv.Need(t, haveTool, "wrk is not installed")
//
// Under CI=true a test that would skip because a service or tool is
// missing fails instead, so that a green CI run means the PostgreSQL and
// browser tests ran.
package testenv

import (
	"fmt"
	"os"
)

// PostgresDSNVar names the environment variable holding the PostgreSQL
// server the tests use, e.g. postgres://root@127.0.0.1:5432/test?sslmode=disable.
const PostgresDSNVar = "BBS_TEST_POSTGRES_DSN"

// TB is the part of testing.TB that Need uses.
type TB interface {
	Helper()
	Skip(args ...any)
	Fatal(args ...any)
}

// InCI reports whether the tests run under CI (CI=true, as .ci/run and
// most CI services set it).
func InCI() bool { return os.Getenv("CI") == "true" }

// Need skips the test with why when ok is false, or fails it under CI.
func Need(tb TB, ok bool, why string) {
	tb.Helper()
	if ok {
		return
	}
	if InCI() {
		tb.Fatal(fmt.Sprintf("%s (CI=true: this test must run, not skip)", why))
		return
	}
	tb.Skip(why)
}

// PostgresDSN returns the test server's DSN from BBS_TEST_POSTGRES_DSN,
// skipping the test when it is unset, or failing it under CI.
func PostgresDSN(tb TB) string {
	tb.Helper()
	dsn := os.Getenv(PostgresDSNVar)
	Need(tb, dsn != "", PostgresDSNVar+" is not set: skipping the PostgreSQL test (e.g. postgres://root@127.0.0.1:5432/test?sslmode=disable)")
	return dsn
}
