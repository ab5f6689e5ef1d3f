package goservers

import "testing"

func TestRouter(t *testing.T) {
	r := newRouter[string]()
	r.handle("GET", "/", "root")
	r.handle("GET", "/id/:id", "id")
	r.handle("GET", "/id/:id/profile", "profile")
	r.handle("GET", "/api/v1/posts/:post/comments/:comment", "comment")
	r.handle("GET", "/static/*", "static")
	r.handle("GET", "/v/:version/docs/*", "docs")
	r.handle("POST", "/json", "json")
	cases := []struct {
		method, path, want string
		params             []string
	}{
		{"GET", "/", "root", nil},
		{"GET", "/id/1", "id", []string{"1"}},
		{"GET", "/id/1/profile", "profile", []string{"1"}},
		{"GET", "/id/", "", nil},
		{"GET", "/id/1/", "", nil},
		{"GET", "/api/v1/posts/7/comments/9", "comment", []string{"7", "9"}},
		{"GET", "/static/a/b.css", "static", nil},
		{"GET", "/static", "static", nil},
		{"GET", "/staticx", "", nil},
		{"GET", "/v/2/docs/x/y", "docs", []string{"2"}},
		{"POST", "/json", "json", nil},
		{"GET", "/json", "", nil},
		{"PUT", "/id/1", "", nil},
	}
	for _, c := range cases {
		var ps params
		h, ok := r.lookup([]byte(c.method), []byte(c.path), &ps)
		if c.want == "" {
			if ok {
				t.Errorf("%s %s matched %q, want no match", c.method, c.path, h)
			}
			continue
		}
		if !ok || h != c.want {
			t.Errorf("%s %s = %q, %v; want %q", c.method, c.path, h, ok, c.want)
			continue
		}
		if ps.n != len(c.params) {
			t.Errorf("%s %s: %d params, want %v", c.method, c.path, ps.n, c.params)
			continue
		}
		for i, p := range c.params {
			if string(ps.get(i)) != p {
				t.Errorf("%s %s: param %d = %q, want %q", c.method, c.path, i, ps.get(i), p)
			}
		}
	}
}

func TestRouterLookupAllocatesNothing(t *testing.T) {
	r := newRouter[int]()
	r.handle("GET", "/", 1)
	r.handle("GET", "/id/:id", 2)
	method, path := []byte("GET"), []byte("/id/42")
	allocs := testing.AllocsPerRun(100, func() {
		var ps params
		r.lookup(method, path, &ps)
	})
	if allocs != 0 {
		t.Fatalf("lookup allocates %.1f times per call", allocs)
	}
}
