// Package strictjson is the one reading of a JSON object the harness is given, whoever wrote
// it: exactly one object, not null nor a list nor a number, nothing after it, and an error that
// names the field it is about. How strict it is beyond that depends on who wrote the text
// (Rules): a file a user hands over (a profile, a load config) may hold no field the type does
// not know and no null, where what bindrace itself wrote (a saved session, a generator's
// output, a ready line) is read by the version that wrote it or a newer one.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// Rules say how strict a reading is.
type Rules struct {
	// KnownFields refuses a field the type does not know (a typo in a handed file, a field a
	// far end should not send); off, an older reader skips what a newer writer added.
	KnownFields bool
	// NoNulls refuses a field set to null: decoded over a default it would quietly erase the
	// default (a map, a list) or leave it (a number), and neither is what a file that names a
	// field means.
	NoNulls bool
	// MaxBytes bounds what Read reads and Decode accepts.
	MaxBytes int
}

// MaxBytes bounds a handed file: the largest is a profile of a few KiB or a load config whose
// requests are a few KiB each; 16 MiB leaves room for bodies and is read in milliseconds, while
// an endless stdin is not read into memory.
const MaxBytes = 16 << 20

// Handed is the reading of a file a user hands over: profiles, load configs.
var Handed = Rules{KnownFields: true, NoNulls: true, MaxBytes: MaxBytes}

// Decode reads exactly one JSON object from b into v under the Handed rules.
func Decode(b []byte, v any) error { return Handed.Decode(b, v) }

// Read reads r to its end (at most MaxBytes) and decodes the one JSON object it holds under the
// Handed rules.
func Read(r io.Reader, v any) error { return Handed.Read(r, v) }

// Error is a text refused: Field is the JSON path it is about ("in.n"; "" for the text as a
// whole).
type Error struct{ Field, Problem string }

func (e *Error) Error() string {
	if e.Field == "" {
		return e.Problem
	}
	return fmt.Sprintf("field %q: %s", e.Field, e.Problem)
}

func whole(format string, args ...any) error { return &Error{Problem: fmt.Sprintf(format, args...)} }

// Decode reads exactly one JSON object from b into v.
func (r Rules) Decode(b []byte, v any) error {
	if r.MaxBytes > 0 && len(b) > r.MaxBytes {
		return whole("%d bytes: more than the %d MiB a text of this kind may hold", len(b), r.MaxBytes>>20)
	}
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) == 0 {
		return whole("empty: want one JSON object")
	}
	if trimmed[0] != '{' {
		return whole("want one JSON object, got %s", what(trimmed))
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if r.KnownFields {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return explain(err, len(b))
	}
	if dec.More() {
		return whole("a second JSON value after the object, at byte %d: want one object", dec.InputOffset())
	}
	// More says nothing of a stray closing bracket; a token does.
	if _, err := dec.Token(); err != io.EOF {
		return whole("something after the object, at byte %d: want one object", dec.InputOffset())
	}
	if r.NoNulls {
		return nullField(b)
	}
	return nil
}

// Read reads r to its end (at most r.MaxBytes) and decodes the one JSON object it holds.
func (r Rules) Read(rd io.Reader, v any) error {
	if r.MaxBytes > 0 {
		rd = io.LimitReader(rd, int64(r.MaxBytes)+1)
	}
	b, err := io.ReadAll(rd)
	if err != nil {
		return err
	}
	return r.Decode(b, v)
}

// nullField refuses a null anywhere in the object (Rules.NoNulls), naming the field by its path.
func nullField(b []byte) error {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return explain(err, len(b))
	}
	if path, ok := findNull(v, ""); ok {
		return &Error{Field: path, Problem: "null: leave it out to take the default"}
	}
	return nil
}

// findNull is the path of the first null in v (keys in order), below prefix.
func findNull(v any, prefix string) (string, bool) {
	switch v := v.(type) {
	case nil:
		return prefix, true
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if p, ok := findNull(v[k], strings.TrimPrefix(prefix+"."+k, ".")); ok {
				return p, true
			}
		}
	case []any:
		for i, e := range v {
			if p, ok := findNull(e, fmt.Sprintf("%s[%d]", prefix, i)); ok {
				return p, true
			}
		}
	}
	return "", false
}

// what names the kind of JSON value that starts b.
func what(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("null")):
		return "null"
	case b[0] == '[':
		return "a list"
	case b[0] == '"':
		return "a string"
	case bytes.HasPrefix(b, []byte("true")), bytes.HasPrefix(b, []byte("false")):
		return "a boolean"
	case b[0] == '-' || b[0] >= '0' && b[0] <= '9':
		return "a number"
	}
	return fmt.Sprintf("%q, which is not JSON", string(b[:min(len(b), 16)]))
}

// explain words a decoding error of a text of n bytes by the field it is about.
func explain(err error, n int) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return whole("invalid JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	case errors.As(err, &te) && te.Field != "":
		return &Error{Field: te.Field, Problem: fmt.Sprintf("want %s, got a JSON %s", te.Type, te.Value)}
	case errors.As(err, &te):
		return whole("want %s, got a JSON %s", te.Type, te.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return whole("truncated: the text ends inside the object, after %d bytes", n)
	}
	// encoding/json says `json: unknown field "x"`: keep the name, drop the prefix.
	return whole("%s", strings.TrimPrefix(err.Error(), "json: "))
}
