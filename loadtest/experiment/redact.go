package experiment

import (
	"net/url"
	"strings"
)

// hint logs, for a server that did not come up, the target's hint on how
// to start what its command line needs (Options.Target's StartHint).
func (x *experimentRunner) hint(argv []string) {
	if x.opt.Target.StartHint == nil {
		return
	}
	if h := x.opt.Target.StartHint(argv); h != "" {
		x.logf("%s", h)
	}
}

// redactURLs returns a copy of argv with the password of every URL
// argument, such as a database URL from the environment, replaced by xxxxx,
// for the log and the result: a report is handed out.
func redactURLs(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = a
		prefix, v := "", a
		if k, val, ok := strings.Cut(a, "="); ok && strings.HasPrefix(k, "-") {
			prefix, v = k+"=", val
		}
		if u, err := url.Parse(v); err == nil && u.User != nil {
			if _, has := u.User.Password(); has {
				out[i] = prefix + u.Redacted()
			}
		}
	}
	return out
}
