package binding

import (
	"net/url"
	"testing"
)

func TestAppendUnescaped(t *testing.T) {
	for _, c := range []struct {
		in, path, query string
		ok              bool
	}{
		{"", "", "", true},
		{"a%20b+c", "a b+c", "a b c", true},
		{"%E2%82%ac", "€", "€", true},
		{"%2F%3f%25", "/?%", "/?%", true},
		{"%", "", "", false},
		{"a%2", "", "", false},
		{"%zz", "", "", false},
		{"%%41", "", "", false},
	} {
		for _, q := range []bool{false, true} {
			want := c.path
			if q {
				want = c.query
			}
			got, err := AppendUnescaped([]byte("x:"), []byte(c.in), q)
			if (err == nil) != c.ok || c.ok && string(got) != "x:"+want || !c.ok && string(got) != "x:" {
				t.Errorf("AppendUnescaped(%q, query=%v) = %q, %v", c.in, q, got, err)
			}
		}
	}
	buf := make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() { buf, _ = AppendUnescaped(buf[:0], []byte("a%20b+c"), true) }); n != 0 {
		t.Errorf("%v allocs per call into a buffer with room", n)
	}
}

// FuzzAppendUnescaped holds it to net/url's decoders: the same bytes, the same verdict.
func FuzzAppendUnescaped(f *testing.F) {
	for _, s := range []string{"", "a%20b", "+%2B+", "%", "%4", "%g0", "%C3%A9t%C3%A9", "a+b%3Dc%26d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := AppendUnescaped(nil, []byte(s), true)
		want, werr := url.QueryUnescape(s)
		if (err == nil) != (werr == nil) || err == nil && string(got) != want {
			t.Fatalf("query %q: %q, %v; net/url %q, %v", s, got, err, want, werr)
		}
		got, err = AppendUnescaped(nil, []byte(s), false)
		want, werr = url.PathUnescape(s)
		if (err == nil) != (werr == nil) || err == nil && string(got) != want {
			t.Fatalf("path %q: %q, %v; net/url %q, %v", s, got, err, want, werr)
		}
	})
}
