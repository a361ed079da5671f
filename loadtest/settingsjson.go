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

// Settings' JSON is derived from their json tags: each field as
// encoding/json writes it, except that a time.Duration, whose JSON name
// ends in _ms, is a number of milliseconds (SCHEMA.md, schema version 2).
// Schema version 1 wrote durations as nanoseconds under the name without
// _ms ("think": 100000000); UnmarshalJSON reads those too. No field is
// listed here: a new duration in Settings is written and read as the
// others are.

// msDuration is a time.Duration in JSON as milliseconds, to the
// nanosecond.
type msDuration time.Duration

func (d msDuration) MarshalJSON() ([]byte, error) {
	return json.Marshal(durMs(time.Duration(d)))
}

func (d *msDuration) UnmarshalJSON(b []byte) error {
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*d = msDuration(msDur(v))
	return nil
}

// durMs is d in milliseconds, to the nanosecond.
func durMs(d time.Duration) float64 { return float64(d) / 1e6 }

// msDur is the duration of v milliseconds, rounded to the nanosecond.
func msDur(v float64) time.Duration { return time.Duration(math.Round(v * 1e6)) }

// settingsWire is Settings' JSON form as reflect builds it from Settings'
// tags: out writes, in reads, with the duration fields' indexes in
// Settings (dur), their index in in of the schema 1 form (v1) and their
// names.
type settingsWire struct {
	out, in reflect.Type
	isDur   []bool
	dur     []int
	v1      []int
	names   []string
}

// settingsJSON builds the wire types once: out is Settings with each
// duration an msDuration; in has each as *msDuration (to tell a missing
// one) and adds, after Settings' fields, its schema 1 form as a
// *time.Duration under the name without _ms.
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
// version 1 wrote them (nanoseconds under bare names: "think": 100000000),
// over what s holds. A file holding both forms of one duration is refused.
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
