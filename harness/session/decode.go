package session

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode"

	"github.com/bindrace/bindrace/harness/internal/strictjson"
)

// Every file a session or a baseline is read from goes through one decoder per kind
// (DecodeSummary, DecodeIndex, DecodeRaw, DecodeBaseline, DecodeMatrix, DecodeSweep,
// DecodeScale): one JSON object, of a known kind and schema_version, every number in range, and
// the figures consistent with what they summarise. A file that fails is refused with a
// DecodeError naming it and the field; nothing is recomputed behind the reader's back
// (docs/validation.md says why).

// DecodeError is a saved file refused by its decoder: which file, which field (a JSON path such
// as pairs[3].a.rps; "" for the file as a whole) and what is wrong with it.
type DecodeError struct {
	Path, Field, Problem string
}

func (e *DecodeError) Error() string {
	if e.Field == "" {
		return e.Path + ": " + e.Problem
	}
	return e.Path + ": " + e.Field + ": " + e.Problem
}

// refuse is the DecodeError for field of path.
func refuse(path, field, format string, args ...any) error {
	return &DecodeError{Path: path, Field: field, Problem: fmt.Sprintf(format, args...)}
}

// maxMagnitude bounds every number a saved file holds: far above any real figure (a rate of a
// million billion requests/s), far enough below float64's end that sums and means of them stay
// finite.
const maxMagnitude = 1e15

// savedFile is how a saved file is read (internal/strictjson): one JSON object, fields a newer
// bindrace added skipped, and no more than a gibibyte (a day-long race's raw.json is a few MiB).
var savedFile = strictjson.Rules{MaxBytes: 1 << 30}

// decodeObject decodes b, which must hold exactly one JSON object, into v: a value of the wrong
// type names its field, and every number is held to its range (checkNumbers).
func decodeObject(path string, b []byte, v any) error {
	if err := savedFile.Decode(b, v); err != nil {
		var e *strictjson.Error
		if errors.As(err, &e) {
			return refuse(path, jsonField(e.Field), "%s", e.Problem)
		}
		return refuse(path, "", "%v", err)
	}
	return checkNumbers(path, "", reflect.ValueOf(v))
}

// jsonField is a decoding error's field as the file names it: without the Go names of embedded
// records (Figures.wins is wins), which the file never shows (its names are lower case).
func jsonField(f string) string {
	var keep []string
	for _, seg := range strings.Split(f, ".") {
		if seg != "" && !unicode.IsUpper(rune(seg[0])) {
			keep = append(keep, seg)
		}
	}
	return strings.Join(keep, ".")
}

// checkNumbers walks a decoded value: every float within ±maxMagnitude, every integer a count
// (>= 0) except a seed, which is drawn from all int64. JSON itself cannot hold NaN or ±Inf.
func checkNumbers(path, field string, v reflect.Value) error {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return checkNumbers(path, field, v.Elem())
		}
	case reflect.Struct:
		return checkFields(path, field, v)
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if err := checkNumbers(path, fmt.Sprintf("%s[%d]", field, i), v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if err := checkNumbers(path, join(field, fmt.Sprint(it.Key())), it.Value()); err != nil {
				return err
			}
		}
	case reflect.Float32, reflect.Float64:
		if x := v.Float(); x > maxMagnitude || x < -maxMagnitude {
			return refuse(path, field, "%g is out of range (at most %g either way)", x, maxMagnitude)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.Int() < 0 && !strings.HasSuffix(field, "seed") {
			return refuse(path, field, "%d is negative; it is a count", v.Int())
		}
	}
	return nil
}

// checkFields walks a struct's exported fields under their JSON names (embedded structs sit
// beside their parent's fields, as in the file).
func checkFields(path, field string, v reflect.Value) error {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		sub := join(field, name)
		if f.Anonymous {
			sub = field
		}
		if err := checkNumbers(path, sub, v.Field(i)); err != nil {
			return err
		}
	}
	return nil
}

func join(field, name string) string {
	if field == "" {
		return name
	}
	return field + "." + name
}

// checkSchema holds a file's schema_version to the versions this bindrace reads.
func checkSchema(path string, got, oldest, newest int) error {
	if got == 0 {
		return refuse(path, "schema_version", "missing; this bindrace reads %d to %d", oldest, newest)
	}
	if got < oldest || got > newest {
		return refuse(path, "schema_version", "%d is unknown; this bindrace reads %d to %d", got, oldest, newest)
	}
	return nil
}

// oneOf refuses a string field outside its known values.
func oneOf(path, field, got string, known ...string) error {
	for _, k := range known {
		if got == k {
			return nil
		}
	}
	if got == "" {
		return refuse(path, field, "missing (want one of %s)", strings.Join(known, ", "))
	}
	return refuse(path, field, "%q is unknown (want one of %s)", got, strings.Join(known, ", "))
}
