package contract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"

	"bbslab/commands"
)

type boardPost struct {
	No        int64  `json:"no"`
	Name      string `json:"name"`
	Message   string `json:"message"`
	CreatedAt string `json:"created_at"`
}

type boardAnswer struct {
	Command string      `json:"command"`
	Posts   []boardPost `json:"posts"`
}

// validate checks, before any load, that the board at boardURL keeps its
// contract: the commands agree at rest, a posted message appears at the top
// escaped, bad input gets 400 and is not stored, and the count headers match
// commands.View.Expect. It posts two messages; reset the data afterwards.
func validate(ctx context.Context, boardURL string) error {
	v := &boardCheck{base: boardURL, client: &http.Client{Timeout: 10 * time.Second}}
	const n = 30
	var first []boardPost
	for i, view := range commands.Views {
		cmd := view.Name()
		resp, body, err := v.do(ctx, "GET", url.Values{"cmd": {cmd}, "n": {strconv.Itoa(n)}, "format": {"json"}})
		if err != nil {
			return fmt.Errorf("validate: %s: %w", cmd, err)
		}
		var a boardAnswer
		if resp.StatusCode != 200 || json.Unmarshal(body, &a) != nil {
			v.fail("%s: status %d, want 200 with JSON posts", cmd, resp.StatusCode)
			continue
		}
		if len(a.Posts) == 0 {
			v.fail("%s returned no posts: reset the data before validating", cmd)
		}
		if i == 0 {
			first = a.Posts
		} else if !reflect.DeepEqual(a.Posts, first) {
			v.fail("%s returned other posts than %s on a database at rest", cmd, commands.Views[0].Name())
		}
		q, acq := view.Expect(len(a.Posts), n, false)
		v.header(resp, cmd, "X-BBS-Queries", q)
		v.header(resp, cmd, "X-BBS-Acquires", acq)
	}

	mark := fmt.Sprintf("validate-%d", time.Now().UnixNano())
	msg := "<script>alert('" + mark + "')</script>"
	all := commands.AllView.Name()
	resp, body, err := v.do(ctx, "POST", url.Values{"cmd": {all}, "n": {strconv.Itoa(n)}, "name": {"validator"}, "message": {msg}, "format": {"json"}})
	if err != nil {
		return fmt.Errorf("validate: post: %w", err)
	}
	var a boardAnswer
	if resp.StatusCode != 200 || json.Unmarshal(body, &a) != nil || len(a.Posts) == 0 || a.Posts[0].Message != msg {
		v.fail("a posted message is not at the top of the answer (status %d)", resp.StatusCode)
	}
	q, acq := commands.AllView.Expect(len(a.Posts), n, true)
	v.header(resp, all+" with a post", "X-BBS-Queries", q)
	v.header(resp, all+" with a post", "X-BBS-Acquires", acq)
	resp, body, err = v.do(ctx, "GET", url.Values{"cmd": {all}, "n": {"5"}})
	if err != nil {
		return fmt.Errorf("validate: page: %w", err)
	}
	page := string(body)
	switch {
	case resp.StatusCode != 200:
		v.fail("GET page: status %d", resp.StatusCode)
	case strings.Contains(page, msg):
		v.fail("the page shows a posted <script> unescaped")
	case !strings.Contains(page, mark):
		v.fail("the page does not show the posted message")
	case !strings.Contains(page, "&lt;script&gt;"):
		v.fail("the page does not show the posted <script> escaped as &lt;script&gt;")
	}

	bad := "validate-bad-" + mark
	for _, form := range []url.Values{
		{"cmd": {"NoSuchCommand"}, "message": {bad}},
		{"cmd": {all}, "n": {"0"}, "message": {bad}},
		{"cmd": {all}, "name": {strings.Repeat("x", 65)}, "message": {bad}},
		{"cmd": {all}, "message": {bad + "\x00"}},
	} {
		resp, _, err := v.do(ctx, "POST", form)
		if err != nil {
			return fmt.Errorf("validate: bad input: %w", err)
		}
		if resp.StatusCode != 400 {
			v.fail("bad input %v: status %d, want 400", brief(form), resp.StatusCode)
		}
	}
	_, body, err = v.do(ctx, "GET", url.Values{"cmd": {all}, "n": {"5"}, "format": {"json"}})
	if err != nil {
		return fmt.Errorf("validate: %w", err)
	}
	if strings.Contains(string(body), bad) {
		v.fail("a rejected bad input was stored")
	}
	if len(v.fails) > 0 {
		return errors.New("validation failed:\n  " + strings.Join(v.fails, "\n  "))
	}
	return nil
}

type boardCheck struct {
	base   string
	client *http.Client
	fails  []string
}

func (v *boardCheck) fail(format string, a ...any) {
	v.fails = append(v.fails, fmt.Sprintf(format, a...))
}

func (v *boardCheck) header(resp *http.Response, cmd, name string, want int) {
	got, err := strconv.Atoi(resp.Header.Get(name))
	if err != nil {
		v.fail("%s: header %s missing or not a number", cmd, name)
		return
	}
	if got != want {
		v.fail("%s: %s = %d, want %d", cmd, name, got, want)
	}
}

func (v *boardCheck) do(ctx context.Context, method string, form url.Values) (*http.Response, []byte, error) {
	u, body := v.base+"?"+form.Encode(), io.Reader(nil)
	if method != "GET" {
		u, body = v.base, strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := v.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	return resp, b, err
}

// brief shows a form without long values.
func brief(f url.Values) string {
	var parts []string
	for k, vs := range f {
		s := vs[0]
		if len(s) > 12 {
			s = s[:12] + "…"
		}
		parts = append(parts, k+"="+strconv.Quote(s))
	}
	return strings.Join(parts, " ")
}
