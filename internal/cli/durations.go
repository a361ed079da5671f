package cli

import (
	"reflect"
	"sync"

	"github.com/pelletier/go-toml/v2"
)

// go-toml reads a time.Duration as an integer of nanoseconds. So that a
// struct shared by the engine (time.Duration, as Go code wants it) and a
// TOML file ("5s", as people write it) is declared once, DecodeTOML
// decodes into a mirror of the target's type in which every time.Duration
// is a Duration, and copies the result back. Types that decode themselves
// (encoding.TextUnmarshaler) and structs with unexported fields are kept
// as they are.

// decodeDurations decodes into v (a pointer) through its duration mirror.
func decodeDurations(dec *toml.Decoder, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return dec.Decode(v)
	}
	mt := mirrorOf(rv.Elem().Type())
	if mt == rv.Elem().Type() {
		return dec.Decode(v)
	}
	m := reflect.New(mt)
	copyMirror(m.Elem(), rv.Elem()) // decode over what v holds
	err := dec.Decode(m.Interface())
	copyMirror(rv.Elem(), m.Elem())
	return err
}

var (
	mirrorsMu    sync.Mutex
	mirrors      = map[reflect.Type]reflect.Type{}
	textDecoding = reflect.TypeFor[interface{ UnmarshalText([]byte) error }]()
	tomlDuration = reflect.TypeFor[Duration]()
)

// mirrorOf returns t with time.Duration replaced by Duration wherever it
// can be, or t itself when nothing is replaced.
func mirrorOf(t reflect.Type) reflect.Type {
	mirrorsMu.Lock()
	defer mirrorsMu.Unlock()
	return mirrorLocked(t)
}

func mirrorLocked(t reflect.Type) reflect.Type {
	if m, ok := mirrors[t]; ok {
		return m
	}
	mirrors[t] = t // a type that holds itself keeps its durations there
	m := buildMirror(t)
	mirrors[t] = m
	return m
}

func buildMirror(t reflect.Type) reflect.Type {
	if t == durationType {
		return tomlDuration
	}
	if reflect.PointerTo(t).Implements(textDecoding) {
		return t
	}
	switch t.Kind() {
	case reflect.Pointer:
		if e := mirrorLocked(t.Elem()); e != t.Elem() {
			return reflect.PointerTo(e)
		}
	case reflect.Slice:
		if e := mirrorLocked(t.Elem()); e != t.Elem() {
			return reflect.SliceOf(e)
		}
	case reflect.Map:
		if e := mirrorLocked(t.Elem()); e != t.Elem() {
			return reflect.MapOf(t.Key(), e)
		}
	case reflect.Struct:
		return mirrorStruct(t)
	}
	return t
}

func mirrorStruct(t reflect.Type) reflect.Type {
	fields := make([]reflect.StructField, t.NumField())
	changed := false
	for i := range fields {
		f := t.Field(i)
		if !f.IsExported() {
			return t
		}
		m := mirrorLocked(f.Type)
		if f.Anonymous && m == f.Type && (f.Type.NumMethod() > 0 || reflect.PointerTo(f.Type).NumMethod() > 0) {
			return t // reflect.StructOf cannot embed a type with methods here
		}
		changed = changed || m != f.Type
		fields[i] = reflect.StructField{Name: f.Name, Type: m, Tag: f.Tag, Anonymous: f.Anonymous}
	}
	if !changed {
		return t
	}
	return reflect.StructOf(fields)
}

// copyMirror copies src into dst, two values of a type and its mirror in
// either direction.
func copyMirror(dst, src reflect.Value) {
	if dst.Type() == src.Type() {
		dst.Set(src)
		return
	}
	switch src.Kind() {
	case reflect.Int64: // time.Duration and Duration
		dst.SetInt(src.Int())
	case reflect.Struct:
		for i := range src.NumField() {
			copyMirror(dst.Field(i), src.Field(i))
		}
	case reflect.Pointer:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		dst.Set(reflect.New(dst.Type().Elem()))
		copyMirror(dst.Elem(), src.Elem())
	case reflect.Slice:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		dst.Set(reflect.MakeSlice(dst.Type(), src.Len(), src.Len()))
		for i := range src.Len() {
			copyMirror(dst.Index(i), src.Index(i))
		}
	case reflect.Map:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		dst.Set(reflect.MakeMapWithSize(dst.Type(), src.Len()))
		for it := src.MapRange(); it.Next(); {
			v := reflect.New(dst.Type().Elem()).Elem()
			copyMirror(v, it.Value())
			dst.SetMapIndex(it.Key(), v)
		}
	}
}
