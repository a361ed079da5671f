package entity

import (
	"strings"
	"testing"
)

// TestNormalizeValidates checks that every bad option is refused with an
// error naming it.
func TestNormalizeValidates(t *testing.T) {
	tests := []struct {
		o    Options
		want string // in the error
	}{
		{Options{Driver: "mysql", DSN: "x", Pool: 1}, "driver"},
		{Options{Driver: "sqlite", Pool: 1}, "DSN"},
		{Options{Driver: "sqlite", DSN: "x", Pool: 0}, "pool size 0"},
		{Options{Driver: "sqlite", DSN: "x", Pool: 2, PoolMin: 3}, "pool min 3"},
		{Options{Driver: "sqlite", DSN: "x", Pool: 2, PoolMin: -1}, "pool min -1"},
		{Options{Driver: "sqlite", DSN: "x", Pool: 2, PoolMode: "lazy"}, "pool mode"},
		{Options{Driver: "sqlite", DSN: "x", Pool: 2, PoolValidate: "always"}, `pool validate "always": want "off", "ping" or "query"`},
		{Options{Driver: "sqlite", DSN: "x", Pool: 2, SeedPosts: -1}, "seed posts"},
		{Options{Driver: "sqlite", DSN: "x", Pool: 2, Schema: "s"}, "schema"},
		{Options{Driver: "postgres", DSN: "x", Pool: 2, Schema: "a;b"}, "schema"},
	}
	for _, tt := range tests {
		_, err := tt.o.Normalize()
		if err == nil {
			t.Errorf("Normalize(%+v) succeeded; want an error about %s", tt.o, tt.want)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Normalize(%+v) = %v; want an error about %s", tt.o, err, tt.want)
		}
	}
}

// TestNormalizeDefaults checks the defaults Normalize fills in.
func TestNormalizeDefaults(t *testing.T) {
	o, err := Options{Driver: "sqlite", DSN: "x", Pool: 3}.Normalize()
	if err != nil {
		t.Fatal(err)
	}
	if o.PoolMin != 3 || o.PoolMode != PoolFixed || o.ModeName() != "fixed" || o.PoolValidate != ValidateOff {
		t.Errorf("Normalize(pool 3) = min %d, mode %q (%s), validate %q; want 3, fixed, off", o.PoolMin, o.PoolMode, o.ModeName(), o.PoolValidate)
	}
	o, err = Options{Driver: "postgres", DSN: "x", Pool: 3, PoolMin: 1}.Normalize()
	if err != nil || o.ModeName() != "grow" {
		t.Errorf("Normalize(pool 3, min 1) mode %q, %v; want grow", o.ModeName(), err)
	}
}

func TestNormalizeExecMode(t *testing.T) {
	for _, tt := range []struct {
		driver, mode string
		ok           bool
	}{
		{"postgres", "", true},
		{"postgres", "exec", true},
		{"postgres", "simple_protocol", true},
		{"postgres", "prepared", false},
		{"sqlite", "", true},
		{"sqlite", "cache_statement", true},
		{"sqlite", "exec", false},
	} {
		_, err := Options{Driver: tt.driver, DSN: "x", Pool: 1, ExecMode: tt.mode}.Normalize()
		if (err == nil) != tt.ok {
			t.Errorf("Normalize(%s, exec mode %q) = %v; want ok %v", tt.driver, tt.mode, err, tt.ok)
		}
	}
}
