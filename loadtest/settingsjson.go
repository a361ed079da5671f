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

// settingsWire is Settings' JSON form built by reflect: out writes, in
// reads; dur are the duration fields' indexes, v1 those of their schema 1
// forms in in.
type settingsWire struct {
	out, in reflect.Type
	isDur   []bool
	dur     []int
	v1      []int
	names   []string
}

// settingsJSON builds the wire types once: out has each duration as an
// msDuration; in as *msDuration, plus its schema 1 form (nanoseconds
// under the name without _ms) as a *time.Duration.
var settingsJSON = sync.OnceValue(func() *settingsWire {
	t := reflect.TypeFor[Settings]()
	w := &settingsWire{isDur: make([]bool, t.NumField())}
	out := make([]reflect.StructField, t.NumField())
	in := make([]reflect.StructField, t.NumField())
	var extra []reflect.StructField
	for i := range out {
		f := t.Field(i)
		out[i] = reflect.StructField{Name: f.Name, Type: f.Type, Tag: f.Tag}
		in[i] = out[i]
		if f.Type != reflect.TypeFor[time.Duration]() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !strings.HasSuffix(name, "_ms") {
			panic(fmt.Sprintf("loadtest: Settings.%s: a duration's JSON name ends in _ms, not %q", f.Name, name))
		}
		v1 := strings.TrimSuffix(name, "_ms")
		out[i].Type, in[i].Type = reflect.TypeFor[msDuration](), reflect.TypeFor[*msDuration]()
		w.isDur[i], w.dur, w.names = true, append(w.dur, i), append(w.names, v1)
		w.v1 = append(w.v1, len(in)+len(extra))
		extra = append(extra, reflect.StructField{Name: "V1" + f.Name, Type: reflect.TypeFor[*time.Duration](),
			Tag: reflect.StructTag(fmt.Sprintf(`json:"%s"`, v1))})
	}
	w.out, w.in = reflect.StructOf(out), reflect.StructOf(append(in, extra...))
	return w
})

// MarshalJSON writes s with its durations in milliseconds (SCHEMA.md).
func (s Settings) MarshalJSON() ([]byte, error) {
	w := settingsJSON()
	v, sv := reflect.New(w.out).Elem(), reflect.ValueOf(s)
	for i := range sv.NumField() {
		if w.isDur[i] {
			v.Field(i).SetInt(sv.Field(i).Int())
		} else {
			v.Field(i).Set(sv.Field(i))
		}
	}
	return json.Marshal(v.Interface())
}

// UnmarshalJSON reads settings as MarshalJSON writes them and as schema
// version 1 wrote them, over what s holds.
func (s *Settings) UnmarshalJSON(b []byte) error {
	w := settingsJSON()
	v, sv := reflect.New(w.in).Elem(), reflect.ValueOf(s).Elem()
	for i := range sv.NumField() {
		if !w.isDur[i] {
			v.Field(i).Set(sv.Field(i))
		}
	}
	if err := json.Unmarshal(b, v.Addr().Interface()); err != nil {
		return err
	}
	for i := range sv.NumField() {
		if !w.isDur[i] {
			sv.Field(i).Set(v.Field(i))
		}
	}
	for k, i := range w.dur {
		ms, ns := v.Field(i), v.Field(w.v1[k])
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
