package experiment

import (
	"fmt"
	"strconv"
	"strings"
)

// fileFuncs are the functions a file may call in a quoted string, expanded
// before it is decoded: {{env "NAME" "default"}} is NAME, or default when
// NAME is unset or empty. A placeholder without a quoted argument is left.
const fileFuncs = "env"

func expandFileFuncs(name string, data []byte, lookup func(string) (string, bool)) ([]byte, error) {
	s := string(data)
	if !strings.Contains(s, "{{") {
		return data, nil
	}
	var b strings.Builder
	line := 1
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			b.WriteString(s)
			return []byte(b.String()), nil
		}
		b.WriteString(s[:i])
		line += strings.Count(s[:i], "\n")
		s = s[i:]
		end := strings.Index(s, "}}")
		if nl := strings.IndexByte(s, '\n'); end < 0 || (nl >= 0 && nl < end) {
			return nil, fmt.Errorf("experiment %s:%d: %q has no closing }} on its line", name, line, firstLine(s))
		}
		call := s[:end+2]
		s = s[end+2:]
		out, err := expandCall(call[2:end], lookup)
		if err != nil {
			return nil, fmt.Errorf("experiment %s:%d: %s: %w", name, line, call, err)
		}
		b.WriteString(out)
	}
}

func expandCall(inner string, lookup func(string) (string, bool)) (string, error) {
	fn, rest, _ := strings.Cut(strings.TrimSpace(inner), " ")
	if fn != "env" {
		if strings.ContainsAny(inner, "\"`") {
			return "", fmt.Errorf("unknown function %q (the file-level functions are: %s)", fn, fileFuncs)
		}
		return "{{" + inner + "}}", nil
	}
	var args []string
	for rest = strings.TrimSpace(rest); rest != ""; rest = strings.TrimSpace(rest) {
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return "", fmt.Errorf("env: want quoted arguments, such as {{env \"DB_URL\" \"default\"}}, at %q", rest)
		}
		a, _ := strconv.Unquote(q)
		args = append(args, a)
		rest = rest[len(q):]
	}
	if len(args) < 1 || len(args) > 2 || args[0] == "" {
		return "", fmt.Errorf("env takes a variable name and an optional default, both quoted: {{env \"NAME\" \"default\"}}")
	}
	v, _ := lookup(args[0])
	if v == "" {
		if len(args) < 2 {
			return "", fmt.Errorf("environment variable %s is not set and the call gives no default", args[0])
		}
		v = args[1]
	}
	return tomlEscape(v), nil
}

// tomlEscape escapes s for the inside of a TOML basic ("...") string.
func tomlEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
