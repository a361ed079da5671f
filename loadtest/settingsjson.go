package loadtest

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"time"
)

// msDuration is a time.Duration in JSON as milliseconds.
type msDuration time.Duration

func (d msDuration) MarshalJSON() ([]byte, error) {
	return json.Marshal(float64(d) / 1e6)
}

func (d *msDuration) UnmarshalJSON(b []byte) error {
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*d = msDuration(math.Round(v * 1e6))
	return nil
}

// settingsWire is Settings' JSON form built by reflect: durations as *msDuration, then their
// schema 1 forms (nanoseconds, name without _ms) as *time.Duration, left out on writing.
type settingsWire struct {
	t     reflect.Type
	dur   []int    // the durations' field indexes
	omit  []bool   // whether each is omitempty
	names []string // their schema 1 names
}

var settingsJSON = sync.OnceValue(func() *settingsWire {
	t := reflect.TypeFor[Settings]()
	w := &settingsWire{}
	fields := make([]reflect.StructField, t.NumField())
	var v1s []reflect.StructField
	for i := range fields {
		f := t.Field(i)
		fields[i] = reflect.StructField{Name: f.Name, Type: f.Type, Tag: f.Tag}
		if f.Type != reflect.TypeFor[time.Duration]() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !strings.HasSuffix(name, "_ms") {
			panic(fmt.Sprintf("loadtest: Settings.%s: a duration's JSON name ends in _ms, not %q", f.Name, name))
		}
		v1 := strings.TrimSuffix(name, "_ms")
		fields[i].Type = reflect.TypeFor[*msDuration]()
		w.dur, w.omit, w.names = append(w.dur, i), append(w.omit, opts == "omitempty"), append(w.names, v1)
		v1s = append(v1s, reflect.StructField{Name: "V1" + f.Name, Type: reflect.TypeFor[*time.Duration](),
			Tag: reflect.StructTag(fmt.Sprintf(`json:"%s,omitempty"`, v1))})
	}
	w.t = reflect.StructOf(append(fields, v1s...))
	return w
})

func copyOther(dst, src reflect.Value) {
	for i := range reflect.TypeFor[Settings]().NumField() {
		if dst.Field(i).Type() == src.Field(i).Type() {
			dst.Field(i).Set(src.Field(i))
		}
	}
}

// MarshalJSON writes s with its durations in milliseconds (SCHEMA.md).
func (s Settings) MarshalJSON() ([]byte, error) {
	w := settingsJSON()
	v, sv := reflect.New(w.t).Elem(), reflect.ValueOf(s)
	copyOther(v, sv)
	for k, i := range w.dur {
		if d := msDuration(sv.Field(i).Int()); d != 0 || !w.omit[k] {
			v.Field(i).Set(reflect.ValueOf(&d))
		}
	}
	return json.Marshal(v.Interface())
}

// UnmarshalJSON reads settings as MarshalJSON or schema 1 wrote them, over what s holds.
func (s *Settings) UnmarshalJSON(b []byte) error {
	w := settingsJSON()
	v, sv := reflect.New(w.t).Elem(), reflect.ValueOf(s).Elem()
	copyOther(v, sv)
	if err := json.Unmarshal(b, v.Addr().Interface()); err != nil {
		return err
	}
	copyOther(sv, v)
	for k, i := range w.dur {
		ms, ns := v.Field(i), v.Field(sv.NumField()+k)
		switch {
		case !ms.IsNil() && !ns.IsNil():
			return fmt.Errorf("settings: both %s (nanoseconds, schema 1) and %s_ms (schema 2)", w.names[k], w.names[k])
		case !ms.IsNil():
			sv.Field(i).SetInt(ms.Elem().Int())
		case !ns.IsNil():
			sv.Field(i).SetInt(ns.Elem().Int())
		}
	}
	return nil
}
