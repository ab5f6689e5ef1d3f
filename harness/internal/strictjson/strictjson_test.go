package strictjson

import (
	"strings"
	"testing"
)

type inner struct {
	N int `json:"n"`
}

type sample struct {
	Name  string             `json:"name"`
	In    inner              `json:"in"`
	Limit map[string]float64 `json:"limit"`
}

// One object or an error naming what is wrong, and where: each class of bad input once.
func TestDecode(t *testing.T) {
	var ok sample
	if err := Decode([]byte(" {\"name\": \"a\", \"in\": {\"n\": 2}}\n"), &ok); err != nil || ok.In.N != 2 {
		t.Fatalf("a good object: %+v, %v", ok, err)
	}
	for _, c := range []struct{ in, say string }{
		{``, "empty"},
		{`null`, "got null"},
		{`[1]`, "got a list"},
		{`"x"`, "got a string"},
		{`42`, "got a number"},
		{`true`, "got a boolean"},
		{`nope`, "not JSON"},
		{`{"name": "a"} {"name": "b"}`, "a second JSON value"},
		{`{"name": "a"}}`, "something after the object"},
		{`{"name": "a"`, "ends inside the object"},
		{`{"name": 1}`, `field "name": want string`},
		{`{"in": {"n": "2"}}`, `field "in.n": want int`},
		{`{"nmae": "a"}`, `unknown field "nmae"`},
		{`{"limit": null}`, `field "limit": null`},
		{`{"in": {"n": null}}`, `field "in.n": null`},
		{`{"name": "a",}`, "invalid JSON at byte"},
		{`{"in": {"n": 1e400}}`, `field "in.n"`},
	} {
		var s sample
		if err := Decode([]byte(c.in), &s); err == nil || !strings.Contains(err.Error(), c.say) {
			t.Errorf("%s: %v, want an error saying %q", c.in, err, c.say)
		}
	}
	if err := Read(strings.NewReader(`{"name": "`+strings.Repeat("x", MaxBytes)+`"}`), &ok); err == nil || !strings.Contains(err.Error(), "MiB") {
		t.Errorf("an endless input: %v", err)
	}
}
