package commands_test

import (
	"errors"
	"strings"
	"testing"

	"bbslab/commands"
)

func TestDecode(t *testing.T) {
	long := func(n int) *string { s := strings.Repeat("あ", n); return &s }
	tests := []struct {
		name  string
		in    commands.Input
		field string // "" = valid
	}{
		{"view only", commands.Input{Cmd: "AllView"}, ""},
		{"each", commands.Input{Cmd: "EachGetView", N: "500"}, ""},
		{"post", commands.Input{Cmd: "OnceGetView", Name: ptr("山田"), Message: ptr("こんにちは\n世界\t!")}, ""},
		{"crlf", commands.Input{Cmd: "AllView", Message: ptr("a\r\nb")}, ""},
		{"max message", commands.Input{Cmd: "AllView", Message: long(1000)}, ""},
		{"max name", commands.Input{Cmd: "AllView", Name: long(64), Message: ptr("m")}, ""},
		{"missing cmd", commands.Input{}, "cmd"},
		{"unknown cmd", commands.Input{Cmd: "DropTable"}, "cmd"},
		{"lower-case cmd", commands.Input{Cmd: "allview"}, "cmd"},
		{"n zero", commands.Input{Cmd: "AllView", N: "0"}, "n"},
		{"n too big", commands.Input{Cmd: "AllView", N: "501"}, "n"},
		{"n huge", commands.Input{Cmd: "AllView", N: "99999999999999999999999"}, "n"},
		{"n text", commands.Input{Cmd: "AllView", N: "ten"}, "n"},
		{"n negative", commands.Input{Cmd: "AllView", N: "-1"}, "n"},
		{"empty message", commands.Input{Cmd: "AllView", Message: ptr("")}, "message"},
		{"blank message", commands.Input{Cmd: "AllView", Message: ptr(" \n\t")}, "message"},
		{"long message", commands.Input{Cmd: "AllView", Message: long(1001)}, "message"},
		{"long name", commands.Input{Cmd: "AllView", Name: long(65), Message: ptr("m")}, "name"},
		{"bad utf8", commands.Input{Cmd: "AllView", Message: ptr("a\xffb")}, "message"},
		{"bad utf8 name", commands.Input{Cmd: "AllView", Name: ptr("\xc3"), Message: ptr("m")}, "name"},
		{"nul", commands.Input{Cmd: "AllView", Message: ptr("a\x00b")}, "message"},
		{"escape", commands.Input{Cmd: "AllView", Message: ptr("a\x1b[31mb")}, "message"},
		{"del", commands.Input{Cmd: "AllView", Message: ptr("a\x7fb")}, "message"},
		{"newline in name", commands.Input{Cmd: "AllView", Name: ptr("a\nb"), Message: ptr("m")}, "name"},
		{"c1 control", commands.Input{Cmd: "AllView", Message: ptr("a\u0085b")}, "message"},
	}
	for _, tt := range tests {
		_, _, err := commands.Decode(tt.in, 30)
		if tt.field == "" {
			if err != nil {
				t.Errorf("%s: Decode = %v; want no error", tt.name, err)
			}
			continue
		}
		var ie *commands.InputError
		if !errors.As(err, &ie) {
			t.Errorf("%s: Decode = %v; want an InputError on %q", tt.name, err, tt.field)
			continue
		}
		if ie.Field != tt.field {
			t.Errorf("%s: error on field %q (%v); want %q", tt.name, ie.Field, err, tt.field)
		}
	}
}

func TestDecodeValues(t *testing.T) {
	v, req, err := commands.Decode(commands.Input{Cmd: "EachGetView", Name: ptr("  "), Message: ptr("x\r\ny\rz")}, 30)
	if err != nil {
		t.Fatal(err)
	}
	if v != commands.EachGetView || req.N != 30 {
		t.Errorf("Decode = %s, n=%d; want EachGetView, 30", v.Name(), req.N)
	}
	if req.NewPost.Name != commands.Anonymous {
		t.Errorf("blank name stored as %q; want %q", req.NewPost.Name, commands.Anonymous)
	}
	if req.NewPost.Message != "x\ny\nz" {
		t.Errorf("message = %q; want line ends normalised to LF", req.NewPost.Message)
	}
	_, req, _ = commands.Decode(commands.Input{Cmd: "AllView", N: "7"}, 30)
	if req.N != 7 || req.NewPost != nil {
		t.Errorf("Decode n=7 = %+v", req)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add("AllView", "name", "message", "30", true)
	f.Add("EachGetView", "山田", "こんにちは\r\n", "1", true)
	f.Add("OnceGetView", "", "<script>alert(1)</script>", "500", true)
	f.Add("x", "\xff", "\x00", "-1", false)
	f.Fuzz(func(t *testing.T, cmd, name, message, n string, hasMessage bool) {
		in := commands.Input{Cmd: cmd, Name: &name, N: n}
		if hasMessage {
			in.Message = &message
		}
		v, req, err := commands.Decode(in, 30)
		if err != nil {
			var ie *commands.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("Decode returned a non-input error %T: %v", err, err)
			}
			return
		}
		if v == nil || req.N < 1 || req.N > commands.MaxN {
			t.Fatalf("Decode accepted %+v: view %v, n %d", in, v, req.N)
		}
		if req.NewPost != nil {
			if req.NewPost.Message == "" || len([]rune(req.NewPost.Message)) > commands.MaxMessage || len([]rune(req.NewPost.Name)) > commands.MaxName {
				t.Fatalf("Decode accepted post %+v", req.NewPost)
			}
			if strings.ContainsAny(req.NewPost.Message, "\r\x00") {
				t.Fatalf("message kept CR or NUL: %q", req.NewPost.Message)
			}
		}
	})
}
