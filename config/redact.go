package config

import (
	"net/url"
	"reflect"
	"regexp"
	"strings"
)

// redacted replaces a secret wherever one would be shown.
const redacted = "xxxxx"

// kvPassword finds the password of a key=value PostgreSQL DSN
// ("host=db user=u password=secret"), quoted or not, as libpq writes it.
var kvPassword = regexp.MustCompile(`(?i)(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|\S*)`)

// RedactDSN returns dsn with its password replaced by xxxxx: in a URL
// (postgres://user:secret@host/db) by url.URL.Redacted, in a key=value
// string by rewriting password=...; a query parameter password=... of a
// URL is replaced as well. A DSN without a password, such as a SQLite
// file, is returned unchanged.
func RedactDSN(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" && u.Host != "" {
		q := u.Query()
		if q.Has("password") {
			q.Set("password", redacted)
			u.RawQuery = q.Encode()
		}
		return u.Redacted()
	}
	return kvPassword.ReplaceAllString(dsn, "${1}"+redacted)
}

// secretFlags are the flags whose value is redacted from a command line;
// dsn keeps all but its password.
var secretFlags = map[string]func(string) string{
	"dsn":         RedactDSN,
	"admin-token": func(string) string { return redacted },
}

// RedactArgs returns a copy of a bbs command line (flags as config.Parse
// reads them: -name value, -name=value, one or two dashes) with the
// -admin-token value replaced by xxxxx and the -dsn password redacted.
// Any other argument that parses as a URL with a password is redacted too.
func RedactArgs(args []string) []string {
	out := make([]string, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		out[i] = a
		name, ok := strings.CutPrefix(a, "-")
		if !ok {
			out[i] = redactURL(a)
			continue
		}
		name = strings.TrimPrefix(name, "-")
		name, value, hasValue := strings.Cut(name, "=")
		redact, secret := secretFlags[name]
		switch {
		case !secret:
		case hasValue:
			out[i] = a[:len(a)-len(value)] + redact(value)
		case i+1 < len(args):
			i++
			out[i] = redact(args[i])
		}
	}
	return out
}

// redactURL redacts the password of s when s is a URL with one.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		if _, has := u.User.Password(); has {
			return u.Redacted()
		}
	}
	return s
}

// Redacted returns every knob of c by its TOML name (tables as nested
// maps), as /admin/stats shows them: the DSN with its password redacted
// (RedactDSN) and admin_token only as "set" or "unset".
func (c Config) Redacted() map[string]any {
	m := tomlMap(reflect.ValueOf(c))
	m["dsn"] = RedactDSN(c.DSN)
	m["admin_token"] = "unset"
	if c.AdminToken != "" {
		m["admin_token"] = "set"
	}
	return m
}

// tomlMap flattens a struct into a map keyed by its fields' TOML names
// (fields), a table's fields in a nested map. Values keep their type, so
// Duration marshals as "5s".
func tomlMap(v reflect.Value) map[string]any {
	m := map[string]any{}
	for key, f := range fields(v, "", map[string]reflect.Value{}) {
		in := m
		for table, rest, ok := strings.Cut(key, "."); ok; table, rest, ok = strings.Cut(key, ".") {
			if in[table] == nil {
				in[table] = map[string]any{}
			}
			in, key = in[table].(map[string]any), rest
		}
		in[key] = f.Interface()
	}
	return m
}
