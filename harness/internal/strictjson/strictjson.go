// Package strictjson is the one strict reading of a JSON object the harness is handed (a
// profile, a load config): exactly one object, not null nor a list nor a number, nothing after
// it, no field the type does not know, no field set to null, and an error that names the field
// it is about.
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

// MaxBytes bounds what is read: the largest of these files is a profile of a few KiB or a load
// config whose requests are a few KiB each; 16 MiB leaves room for bodies and is read in
// milliseconds, while an endless stdin is not read into memory.
const MaxBytes = 16 << 20

// Decode reads exactly one JSON object from b into v.
func Decode(b []byte, v any) error {
	if len(b) > MaxBytes {
		return fmt.Errorf("%d bytes: more than the %d MiB a file of this kind may hold", len(b), MaxBytes>>20)
	}
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) == 0 {
		return errors.New("empty: want one JSON object")
	}
	if trimmed[0] != '{' {
		return fmt.Errorf("want one JSON object, got %s", what(trimmed))
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return explain(err)
	}
	if dec.More() {
		return fmt.Errorf("a second JSON value after the object, at byte %d: want one object", dec.InputOffset())
	}
	// More says nothing of a stray closing bracket; a token does.
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("something after the object, at byte %d: want one object", dec.InputOffset())
	}
	return nullField(b)
}

// nullField refuses a null anywhere in the object: decoded over a default it would quietly
// erase the default (a map, a list) or leave it (a number), and neither is what a file that
// names a field means. The field is named by its path.
func nullField(b []byte) error {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return explain(err)
	}
	if path, ok := findNull(v, ""); ok {
		return fmt.Errorf("field %q is null: leave it out to take the default", path)
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

// Read reads r to its end (at most MaxBytes) and decodes the one JSON object it holds.
func Read(r io.Reader, v any) error {
	b, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return err
	}
	return Decode(b, v)
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

// explain words a decoding error by the field it is about.
func explain(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("invalid JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	case errors.As(err, &te) && te.Field != "":
		return fmt.Errorf("field %q: want %s, got a JSON %s", te.Field, te.Type, te.Value)
	case errors.As(err, &te):
		return fmt.Errorf("want %s, got a JSON %s", te.Type, te.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("invalid JSON: it ends inside the object")
	}
	// encoding/json says `json: unknown field "x"`: keep the name, drop the prefix.
	return errors.New(strings.TrimPrefix(err.Error(), "json: "))
}
