package scenario

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"testing"
)

func TestDBScenariosByName(t *testing.T) {
	for _, name := range DBNames() {
		s, err := ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		if s.Database == "" {
			t.Errorf("%s: no key table", name)
		}
	}
	for _, n := range Names() {
		if s, _ := ByName(n); s.Database != "" {
			t.Errorf("Names() lists the database scenario %s: verify and load would need a database by default", n)
		}
	}
}

// AppendRequest must render what Request renders for the scenario WithID: the same bytes, a
// parseable HTTP request, a Content-Length that matches the substituted body.
func TestAppendRequestMatchesRequest(t *testing.T) {
	for _, s := range DB() {
		for _, id := range []int64{1, 42, 2147483647} {
			got := s.AppendRequest(nil, "h:1", id)
			want := s.WithID(id).Request("h:1")
			if !bytes.Equal(got, want) {
				t.Fatalf("%s id %d:\n got %q\nwant %q", s.Name, id, got, want)
			}
			req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(got)))
			if err != nil {
				t.Fatalf("%s: %v", s.Name, err)
			}
			body, _ := io.ReadAll(req.Body)
			if bytes.Contains(got, []byte(IDPlaceholder)) || int64(len(body)) != req.ContentLength {
				t.Errorf("%s id %d: %q", s.Name, id, got)
			}
		}
	}
}

func TestAppendRequestAllocates(t *testing.T) {
	s, _ := ByName("create-order")
	buf := make([]byte, 0, 1024)
	if n := testing.AllocsPerRun(100, func() { buf = s.AppendRequest(buf[:0], "127.0.0.1:8080", 123456) }); n != 0 {
		t.Errorf("AppendRequest allocates %v times per request, want 0", n)
	}
}
