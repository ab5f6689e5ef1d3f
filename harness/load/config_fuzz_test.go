package load

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzDecodeConfig holds the load config decoder to its properties: it never panics; what it
// accepts holds no negative count or duration, a finite rate, and HTTP requests only; and it
// reads back the same from its own encoding. Seeds: configs as `bindrace load --config` and a
// fleet's generators read them (testdata/configs: closed and open loops, WebSocket, a request
// that is not HTTP).
func FuzzDecodeConfig(f *testing.F) {
	files, _ := filepath.Glob("testdata/configs/*.json")
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := DecodeConfig(bytes.NewReader(b))
		if err != nil {
			return
		}
		if c.Connections < 0 || c.Pipelining < 0 || c.Workers < 0 || c.Count < 0 || c.Size < 0 ||
			c.Warmup < 0 || c.Duration < 0 || c.Timeout < 0 || c.LagTolerance < 0 || c.Rate < 0 || math.IsInf(c.Rate, 0) || math.IsNaN(c.Rate) {
			t.Fatalf("accepted %+v", c)
		}
		for i, r := range c.Requests {
			if err := checkRequest(r); err != nil {
				t.Fatalf("accepted request %d: %v", i, err)
			}
		}
		enc, err := EncodeConfig(c)
		if err != nil {
			t.Fatalf("accepted a config that does not encode: %v", err)
		}
		again, err := DecodeConfig(bytes.NewReader(enc))
		if err != nil {
			t.Fatalf("its own encoding is refused: %v\n%s", err, enc)
		}
		if !reflect.DeepEqual(c, again) {
			t.Fatalf("round trip changed it:\n%+v\n%+v\n%s", c, again, enc)
		}
	})
}
