package config

import (
	"flag"
	"reflect"
	"strings"

	"bbslab/knob"
)

// The numeric knobs are declared in knob.Board: each names its field here
// by its TOML key. These functions take the table and a pointer to the
// struct holding the fields, so that a test can add a knob to both.

// knobField is the field of the struct v points to whose TOML key is key
// ("profile.block_rate": block_rate in the [profile] table), looking into
// embedded structs as go-toml does. A knob without a field panics: every
// test that builds a Default finds it.
func knobField(v any, key string) reflect.Value {
	if f, ok := field(reflect.ValueOf(v).Elem(), key); ok {
		return f
	}
	panic("config: no field with the TOML key " + key)
}

func field(v reflect.Value, key string) (reflect.Value, bool) {
	head, rest, nested := strings.Cut(key, ".")
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		switch {
		case f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct:
			if x, ok := field(v.Field(i), key); ok {
				return x, true
			}
		case tag == head && nested && f.Type.Kind() == reflect.Struct:
			return field(v.Field(i), rest)
		case tag == head && !nested:
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// setDefaults sets every knob of t to its default.
func setDefaults(t knob.Table, v any) {
	for _, d := range t {
		knobField(v, d.Key).SetInt(d.Default)
	}
}

// validateKnobs checks the knobs of t: their bounds and the rules between
// them (knob.Table.Validate).
func validateKnobs(t knob.Table, v any) error {
	vals := map[string]int64{}
	for _, d := range t {
		vals[d.Key] = knobField(v, d.Key).Int()
	}
	return t.Validate(vals)
}

// bindKnobs registers a flag per knob of t.
func bindKnobs(fs *flag.FlagSet, t knob.Table, v any) {
	for _, d := range t {
		switch p := knobField(v, d.Key).Addr().Interface().(type) {
		case flag.Value:
			fs.Var(p, d.Flag(), d.Usage())
		case *int:
			fs.IntVar(p, d.Flag(), *p, d.Usage())
		case *int64:
			fs.Int64Var(p, d.Flag(), *p, d.Usage())
		default:
			panic("config: knob " + d.Key + " has a field of type " + reflect.TypeOf(p).Elem().String())
		}
	}
}
