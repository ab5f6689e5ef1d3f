package session

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// The decoders' fuzz targets, seeded from every real file in testdata (make fuzz runs each
// long; go test runs the seeds). Properties: no input panics; what is accepted holds sane
// values (sane); and it survives encode–decode unchanged: encoding it works (so every number is
// finite), the decoder accepts the encoding, and encoding that gives the same bytes.

// seed adds every testdata file whose name ends in one of suffixes.
func seed(f *testing.F, suffixes ...string) {
	files, _ := filepath.Glob("testdata/*/*.json")
	for _, file := range files {
		for _, s := range suffixes {
			if strings.HasSuffix(file, s) {
				f.Add(readTestdata(f, strings.TrimPrefix(file, "testdata/")))
			}
		}
	}
}

// roundTrip holds v, accepted by decode, to the round trip and to sane.
func roundTrip[T any](t *testing.T, v *T, decode func(string, []byte) (*T, error), sane func(*T) string) {
	if why := sane(v); why != "" {
		t.Fatalf("accepted, but %s", why)
	}
	enc, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("accepted, but cannot be encoded: %v", err)
	}
	again, err := decode("again", enc)
	if err != nil {
		t.Fatalf("accepted, but its encoding is refused: %v\n%s", err, enc)
	}
	if enc2, _ := json.Marshal(again); !bytes.Equal(enc, enc2) {
		t.Fatalf("changed by a round trip:\n%s\n%s", enc, enc2)
	}
}

func FuzzDecodeSummary(f *testing.F) {
	seed(f, ".summary.json")
	f.Fuzz(func(t *testing.T, b []byte) {
		if s, err := DecodeSummary("fuzz", b); err == nil {
			roundTrip(t, s, DecodeSummary, saneSummary)
		}
	})
}

func saneSummary(s *Summary) string {
	switch {
	case s.Wins < 0 || s.Wins > validPairs(s.Pairs):
		return "wins are not among its valid pairs"
	case s.SchemaVersion < oldestSchema || s.SchemaVersion > SchemaVersion:
		return "its schema is unknown"
	}
	for _, pd := range s.Paired {
		if pd.N < 0 || pd.N > validPairs(s.Pairs) {
			return "a paired figure rests on pairs it does not have"
		}
	}
	return ""
}

func FuzzDecodeIndex(f *testing.F) {
	seed(f, ".index.json")
	f.Fuzz(func(t *testing.T, b []byte) {
		if ix, err := DecodeIndex("fuzz", b); err == nil {
			roundTrip(t, ix, DecodeIndex, func(ix *Index) string {
				for _, e := range ix.Sessions {
					if !filepath.IsLocal(e.Dir) {
						return "a sub-session outside the set"
					}
				}
				if len(ix.Sessions) == 0 {
					return "a set of no races"
				}
				return ""
			})
		}
	})
}

func FuzzDecodeRaw(f *testing.F) {
	seed(f, ".raw.json")
	f.Fuzz(func(t *testing.T, b []byte) {
		if r, err := DecodeRaw("fuzz", b); err == nil {
			roundTrip(t, r, DecodeRaw, func(r *Raw) string {
				for _, run := range r.Runs {
					if run.RPS < 0 || run.Responses < 0 || run.Errors < 0 {
						return "a run of negative figures"
					}
				}
				return ""
			})
		}
	})
}

func FuzzDecodeBaseline(f *testing.F) {
	seed(f, ".baseline.json")
	f.Fuzz(func(t *testing.T, b []byte) {
		if base, err := DecodeBaseline("fuzz", b); err == nil {
			roundTrip(t, base, DecodeBaseline, func(base *Baseline) string {
				if len(base.Entries) == 0 || base.Target == "" || base.SchemaVersion > BaselineSchemaVersion {
					return "a baseline without entries, target or known schema"
				}
				return ""
			})
		}
	})
}

// FuzzDecodeOtherKinds: the matrix, sweep and scale summaries, through KindOf as report reads
// them, seeded with every real summary in testdata (races, a matrix, a sweep, a scale) and each
// kind's smallest file.
func FuzzDecodeOtherKinds(f *testing.F) {
	seed(f, ".summary.json")
	for _, k := range []string{"matrix", "sweep", "scale"} {
		f.Add([]byte(`{"kind":"` + k + `","runs":[{"rps":1000,"responses":10000}],"points":[{"run":{"rps":5}}]}`))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		kind, err := KindOf("fuzz", b)
		if err != nil {
			return
		}
		noRule := func(any) string { return "" }
		switch kind {
		case "matrix":
			if m, err := DecodeMatrix("fuzz", b); err == nil {
				roundTrip(t, m, DecodeMatrix, func(m *Matrix) string { return noRule(m) })
			}
		case "sweep":
			if sw, err := DecodeSweep("fuzz", b); err == nil {
				roundTrip(t, sw, DecodeSweep, func(sw *Sweep) string { return noRule(sw) })
			}
		case "scale":
			if sc, err := DecodeScale("fuzz", b); err == nil {
				roundTrip(t, sc, DecodeScale, func(sc *Scale) string { return noRule(sc) })
			}
		}
	})
}
