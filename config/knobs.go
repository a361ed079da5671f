package config

import (
	"flag"
	"reflect"
	"strings"

	"bbslab/knob"
)

// The numeric knobs are declared in knob.Board, each naming its field
// here by its TOML key. These functions take the table and a pointer to
// the struct, so that a test can add a knob to both.

// fields returns the fields of the struct v by their TOML keys, a table's
// as "table.key"; an embedded struct without a tag lends its fields to
// the outer table, as go-toml decodes them.
func fields(v reflect.Value, prefix string, out map[string]reflect.Value) map[string]reflect.Value {
	for i := range v.NumField() {
		f := v.Type().Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		switch {
		case tag == "-" || !f.IsExported():
		case f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct:
			fields(v.Field(i), prefix, out)
		case f.Type.Kind() == reflect.Struct:
			fields(v.Field(i), prefix+tag+".", out)
		case tag != "":
			out[prefix+tag] = v.Field(i)
		}
	}
	return out
}

// knobFields returns the field of each knob of t in the struct p points
// to; a knob without one panics, which every test that builds a Default
// finds.
func knobFields(t knob.Table, p any) map[string]reflect.Value {
	all := fields(reflect.ValueOf(p).Elem(), "", map[string]reflect.Value{})
	for _, d := range t {
		if _, ok := all[d.Key]; !ok {
			panic("config: no field with the TOML key " + d.Key)
		}
	}
	return all
}

// setDefaults sets every knob of t to its default.
func setDefaults(t knob.Table, p any) {
	f := knobFields(t, p)
	for _, d := range t {
		f[d.Key].SetInt(d.Default)
	}
}

// validateKnobs checks the knobs of t (knob.Table.Validate).
func validateKnobs(t knob.Table, p any) error {
	f, v := knobFields(t, p), map[string]int64{}
	for _, d := range t {
		v[d.Key] = f[d.Key].Int()
	}
	return t.Validate(v)
}

// bindKnobs registers a flag per knob of t, its usage ending in its bounds.
func bindKnobs(fs *flag.FlagSet, t knob.Table, p any) {
	f := knobFields(t, p)
	for _, d := range t {
		switch v := f[d.Key].Addr().Interface().(type) {
		case flag.Value: // Duration
			fs.Var(v, d.Flag(), d.Help+": "+d.Bounds())
		case *int:
			fs.IntVar(v, d.Flag(), *v, d.Help+": "+d.Bounds())
		default:
			panic("config: knob " + d.Key + " is neither an int nor a Duration")
		}
	}
}
