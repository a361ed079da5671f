package cli

import (
	"flag"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// BindFlags registers on fs one flag for each field with a flag tag of the
// struct v points to, so that a setting declared once, as a field whose
// tags give its flag, TOML key, JSON field and help, needs no flag line of
// its own:
//
//	Think time.Duration `flag:"think" toml:"think" json:"think_ms" help:"think time between requests"`
//
// The tag is flag:"NAME", or flag:"NAME,negate" for a bool flag that sets
// the field to its negation (-keepalive=false sets DisableKeepAlive). The
// help tag is the flag's usage; an arg tag names the flag's argument in
// -h, its first use in the help quoted as flag.UnquoteUsage wants it
// (arg:"file" with help:"write to file" shows "-out file  write to
// file"). A default tag sets the field, as the flag
// would, when it is bound, and -h shows it as the flag's default; without
// one the field's value is the default. The field is a string, bool, int,
// int64, uint64, float64 or time.Duration (or of a type of one of those
// kinds, such as loadtest.Model), or its address is a flag.Value. Embedded
// structs are walked. A field of another type or a bad default panics: a
// programming error, which the first test of the command finds.
func BindFlags(fs *flag.FlagSet, v any) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("cli.BindFlags: %T is not a pointer to a struct", v))
	}
	bindFields(fs, rv.Elem())
}

// FillDefaults sets each field of the struct v points to that is zero and
// has a default tag to that default, as BindFlags would: one declaration
// of a default serves the flags and the code that fills in what a file or
// a caller left unset.
func FillDefaults(v any) { fillDefaults(reflect.ValueOf(v).Elem()) }

func fillDefaults(s reflect.Value) {
	for i := range s.NumField() {
		sf, fv := s.Type().Field(i), s.Field(i)
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
			fillDefaults(fv)
			continue
		}
		if _, ok := sf.Tag.Lookup("default"); ok && fv.IsZero() {
			bindField(flag.NewFlagSet("", flag.ContinueOnError), sf, fv, "default", false)
		}
	}
}

var (
	durationType  = reflect.TypeFor[time.Duration]()
	flagValueType = reflect.TypeFor[flag.Value]()
)

func bindFields(fs *flag.FlagSet, s reflect.Value) {
	t := s.Type()
	for i := range t.NumField() {
		sf, fv := t.Field(i), s.Field(i)
		tag, ok := sf.Tag.Lookup("flag")
		if !ok {
			if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
				bindFields(fs, fv)
			}
			continue
		}
		name, opt, _ := strings.Cut(tag, ",")
		if name == "" || name == "-" {
			continue
		}
		bindField(fs, sf, fv, name, opt == "negate")
	}
}

// bindField registers the flag name of field sf (value fv).
func bindField(fs *flag.FlagSet, sf reflect.StructField, fv reflect.Value, name string, negate bool) {
	help := sf.Tag.Get("help")
	if arg := sf.Tag.Get("arg"); arg != "" {
		help = strings.Replace(help, arg, "`"+arg+"`", 1)
	}
	p := fv.Addr()
	switch {
	case negate:
		if fv.Kind() != reflect.Bool {
			panic(fmt.Sprintf("cli.BindFlags: field %s: negate needs a bool", sf.Name))
		}
		fs.Var(&negated{p.Convert(reflect.TypeFor[*bool]()).Interface().(*bool)}, name, help)
	case p.Type().Implements(flagValueType):
		fs.Var(p.Interface().(flag.Value), name, help)
	case fv.Type() == durationType:
		d := p.Interface().(*time.Duration)
		fs.DurationVar(d, name, *d, help)
	default:
		bindKind(fs, sf, p, name, help)
	}
	if def, ok := sf.Tag.Lookup("default"); ok {
		f := fs.Lookup(name)
		if err := f.Value.Set(def); err != nil {
			panic(fmt.Sprintf("cli.BindFlags: field %s: default %q: %v", sf.Name, def, err))
		}
		f.DefValue = f.Value.String()
	}
}

// bindKind registers a flag of one of the flag package's own kinds,
// reading and writing the field through a pointer of its kind (a
// loadtest.Model is a string to the flag).
func bindKind(fs *flag.FlagSet, sf reflect.StructField, p reflect.Value, name, help string) {
	as := func(t reflect.Type) any { return p.Convert(t).Interface() }
	switch sf.Type.Kind() {
	case reflect.String:
		s := as(reflect.TypeFor[*string]()).(*string)
		fs.StringVar(s, name, *s, help)
	case reflect.Bool:
		b := as(reflect.TypeFor[*bool]()).(*bool)
		fs.BoolVar(b, name, *b, help)
	case reflect.Int:
		n := as(reflect.TypeFor[*int]()).(*int)
		fs.IntVar(n, name, *n, help)
	case reflect.Int64:
		n := as(reflect.TypeFor[*int64]()).(*int64)
		fs.Int64Var(n, name, *n, help)
	case reflect.Uint64:
		n := as(reflect.TypeFor[*uint64]()).(*uint64)
		fs.Uint64Var(n, name, *n, help)
	case reflect.Float64:
		x := as(reflect.TypeFor[*float64]()).(*float64)
		fs.Float64Var(x, name, *x, help)
	default:
		panic(fmt.Sprintf("cli.BindFlags: field %s: type %v has no flag", sf.Name, sf.Type))
	}
}

// negated is a bool flag that holds the negation of its field.
type negated struct{ p *bool }

func (n *negated) String() string {
	if n == nil || n.p == nil {
		return "false" // flag's probe of the zero value
	}
	return strconv.FormatBool(!*n.p)
}

func (n *negated) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	*n.p = !b
	return nil
}

func (n *negated) IsBoolFlag() bool { return true }
