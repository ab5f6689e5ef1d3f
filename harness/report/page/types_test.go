package page

import (
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/session"
)

// mirrored names the Go type each interface of ts/types.ts mirrors: what summary.json,
// raw.json and their parts are written from (harness/session).
var mirrored = map[string]reflect.Type{
	"DBRun": reflect.TypeFor[session.DBRun](), "DBInfo": reflect.TypeFor[session.DBInfo](),
	"Run": reflect.TypeFor[session.Run](), "Pair": reflect.TypeFor[session.Pair](),
	"Shape": reflect.TypeFor[session.Shape](), "SideStats": reflect.TypeFor[session.SideStats](),
	"Figure": reflect.TypeFor[session.Figure](), "Thresholds": reflect.TypeFor[session.Thresholds](),
	"Paired": reflect.TypeFor[session.Paired](), "Check": reflect.TypeFor[session.Check](),
	"Side": reflect.TypeFor[session.Side](), "Summary": reflect.TypeFor[session.Summary](),
	"Rate": reflect.TypeFor[session.Rate](), "Merged": reflect.TypeFor[session.Merged](),
	"TargetStats": reflect.TypeFor[session.TargetStats](), "SlotPoint": reflect.TypeFor[session.SlotPoint](),
	"Matrix": reflect.TypeFor[session.Matrix](), "SweepPoint": reflect.TypeFor[session.SweepPoint](),
	"Sweep": reflect.TypeFor[session.Sweep](), "ScalePoint": reflect.TypeFor[session.ScalePoint](),
	"Scale": reflect.TypeFor[session.Scale](), "Raw": reflect.TypeFor[session.Raw](),
	"Look": reflect.TypeFor[session.Look](), "Design": reflect.TypeFor[session.Design](),
	"Stop": reflect.TypeFor[session.Stop](), "SetAside": reflect.TypeFor[session.SetAside](),
	"Breakdown": reflect.TypeFor[session.Breakdown](), "BreakdownRow": reflect.TypeFor[session.BreakdownRow](),
	"Breakdowns": reflect.TypeFor[session.Breakdowns](), "Attribution": reflect.TypeFor[session.Attribution](),
	"AttributionView": reflect.TypeFor[session.AttributionView](), "AttributionRow": reflect.TypeFor[session.AttributionRow](),
	"AttributionRest": reflect.TypeFor[session.AttributionRest](), "SyscallCounts": reflect.TypeFor[session.SyscallCounts](),
	"Sampled": reflect.TypeFor[session.Sampled](), "SampledRow": reflect.TypeFor[session.SampledRow](),
	"Reading": reflect.TypeFor[session.Reading](),
}

// pageOwn are the declarations of what the page makes itself, mirroring no session type.
var pageOwn = map[string]bool{
	"Data":     true, // the bundle Render embeds: summary, raw, manifest
	"Manifest": true, // read as a record of whatever manifest.json holds
}

// pageAdded are fields the page adds to a session file it embeds (embedRaw).
var pageAdded = map[string]bool{"Raw.trimmed": true}

// ts/types.ts mirrors the session JSON by hand; this holds it to the Go types: every
// interface names the type it mirrors, every field it declares is a JSON field of that type
// (a field renamed or removed in Go fails here), and of a matching kind.
func TestTypesMirrorSession(t *testing.T) {
	src, err := os.ReadFile("ts/types.ts")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range checkTypesTS(string(src)) {
		t.Error(p)
	}
	// Every declaration was read, every field of each: a parser that skipped some would pass.
	decls, _ := parseTSDecls(string(src))
	fields := 0
	for _, d := range decls {
		fields += countFields(d.Fields)
		if d.Alias != nil {
			fields += countFields(d.Alias.objectFields())
		}
	}
	toks := tsTokens(string(src))
	declared := 0
	for i := range toks {
		if toks[i] == ":" && i > 0 && (toks[i-1] == "?" || isIdent(toks[i-1])) {
			declared++
		}
	}
	if n := strings.Count(string(src), "\nexport "); len(decls) != n || fields != declared {
		t.Errorf("read %d declarations with %d fields; types.ts has %d exports and %d fields", len(decls), fields, n, declared)
	}
}

// countFields counts fs and the fields of the object types inside them.
func countFields(fs []tsField) int {
	n := len(fs)
	for _, f := range fs {
		n += countFields(f.Type.objectFields())
	}
	return n
}

// objectFields are the fields of the object types t is made of (through arrays, unions and
// intersections).
func (t *tsType) objectFields() []tsField {
	var fs []tsField
	if t.Kind == "object" {
		fs = append(fs, t.Fields...)
	}
	if t.Elem != nil {
		fs = append(fs, t.Elem.objectFields()...)
	}
	for _, a := range t.Args {
		fs = append(fs, a.objectFields()...)
	}
	return fs
}

func isIdent(tok string) bool {
	return tok != "" && (tok[0] == '_' || tok[0] >= 'a' && tok[0] <= 'z' || tok[0] >= 'A' && tok[0] <= 'Z')
}

// The check fails on what goes wrong when the two drift apart: a field renamed (or removed) in
// Go, a field of another kind, null where Go never writes one, an interface nobody maps, a
// nested interface of the wrong type.
func TestCheckTypesTSCatches(t *testing.T) {
	for _, c := range []struct{ ts, want string }{
		{"export interface Merged { runs: number; p95_ms: number; }", `Merged.p95_ms: session.Merged has no JSON field "p95_ms"`},
		{"export interface Merged { runs: string; }", "Merged.runs: string, but the Go type is int"},
		{"export interface Merged { runs: number | null; }", "Merged.runs: may be null"},
		{"export interface Rate { rps: number; max_a_rps?: boolean; }", "Rate.max_a_rps: boolean, but the Go type is float64"},
		{"export interface Thing { x: number; }", "Thing: mirrors no Go type"},
		{"export interface Pair { a: Rate; }", "Pair.a: Rate, but the Go type is session.Run"},
		{"export interface Check { interval: [number, number, number] | null; }", "Check.interval: [number, number, number]"},
		{"export interface Sweep { per_target?: { target: string; slo_rps: number }[]; }", `Sweep.per_target[].slo_rps: session.SweepTarget has no JSON field "slo_rps"`},
		{"export interface Summary { pairs?: Record<string, Pair>; }", "Summary.pairs: Record<string, Pair>, but the Go type is []session.Pair"},
		{"export interface Run { target: string", "types.ts: interface Run"},
	} {
		got := strings.Join(checkTypesTS(c.ts), "\n")
		if !strings.Contains(got, c.want) {
			t.Errorf("%s\n  problems: %q\n  want one saying %q", c.ts, got, c.want)
		}
	}
	if p := checkTypesTS("export interface Merged { runs: number; p50_ms?: number; }\nexport type Manifest = Record<string, unknown>;"); len(p) != 0 {
		t.Errorf("a correct mirror: %v", p)
	}
}

// checkTypesTS lists what in types.ts disagrees with the Go types.
func checkTypesTS(src string) []string {
	decls, err := parseTSDecls(src)
	if err != nil {
		return []string{"types.ts: " + err.Error()}
	}
	c := &mirrorCheck{decls: map[string]tsDecl{}}
	for _, d := range decls {
		c.decls[d.Name] = d
	}
	for _, d := range decls {
		gt, ok := mirrored[d.Name]
		switch {
		case pageOwn[d.Name]:
		case !ok:
			c.problem(d.Name, "mirrors no Go type: name it in mirrored (or pageOwn)")
		case d.Alias != nil:
			c.compatible(d.Name, d.Alias, gt)
		default:
			c.fields(d.Name, c.allFields(d), gt)
		}
	}
	return c.problems
}

type mirrorCheck struct {
	decls    map[string]tsDecl
	problems []string
}

func (c *mirrorCheck) problem(where, format string, a ...any) {
	c.problems = append(c.problems, "types.ts: "+where+": "+fmt.Sprintf(format, a...))
}

// allFields are d's fields with those of the interfaces it extends.
func (c *mirrorCheck) allFields(d tsDecl) []tsField {
	var all []tsField
	for _, e := range d.Extends {
		all = append(all, c.allFields(c.decls[e])...)
	}
	return append(all, d.Fields...)
}

// fields checks each TS field against the JSON field of that name of the struct gt.
func (c *mirrorCheck) fields(where string, fields []tsField, gt reflect.Type) {
	for gt.Kind() == reflect.Pointer {
		gt = gt.Elem()
	}
	if gt.Kind() != reflect.Struct {
		c.problem(where, "an object, but the Go type is %s", gt)
		return
	}
	json := jsonFields(gt)
	for _, f := range fields {
		at := where + "." + f.Name
		ft, ok := json[f.Name]
		switch {
		case pageAdded[at]:
		case !ok:
			c.problem(at, "%s has no JSON field %q (it has %s)", gt, f.Name, strings.Join(sortedKeys(json), ", "))
		default:
			c.compatible(at, f.Type, ft)
		}
	}
}

var timeType = reflect.TypeFor[time.Time]()

// compatible checks that values of the Go type gt, as encoding/json writes them, have the TS
// type tt.
func (c *mirrorCheck) compatible(at string, tt *tsType, gt reflect.Type) {
	nullable := gt.Kind() == reflect.Pointer || gt.Kind() == reflect.Slice || gt.Kind() == reflect.Map
	for gt.Kind() == reflect.Pointer {
		gt = gt.Elem()
	}
	k := gt.Kind()
	switch tt.Kind {
	case "union":
		for _, a := range tt.Args {
			if a.Kind == "name" && a.Name == "null" {
				if !nullable {
					c.problem(at, "may be null, but the Go type %s never is", gt)
				}
				continue
			}
			c.compatible(at, a, gt)
		}
	case "intersection":
		for _, a := range tt.Args {
			c.compatible(at, a, gt)
		}
	case "literal":
		c.want(at, tt, gt, k == reflect.String)
	case "array":
		if c.want(at, tt, gt, k == reflect.Slice || k == reflect.Array) {
			c.compatible(at+"[]", tt.Elem, gt.Elem())
		}
	case "tuple":
		if c.want(at, tt, gt, (k == reflect.Array && gt.Len() == len(tt.Args)) || k == reflect.Slice) {
			for _, a := range tt.Args {
				c.compatible(at+"[]", a, gt.Elem())
			}
		}
	case "object":
		c.fields(at, tt.Fields, gt)
	default:
		c.named(at, tt, gt)
	}
}

// named checks a named TS type: a primitive, Record<string, T>, or another interface.
func (c *mirrorCheck) named(at string, tt *tsType, gt reflect.Type) {
	k := gt.Kind()
	switch tt.Name {
	case "unknown":
	case "number":
		c.want(at, tt, gt, k >= reflect.Int && k <= reflect.Float64)
	case "string":
		c.want(at, tt, gt, k == reflect.String || gt == timeType)
	case "boolean":
		c.want(at, tt, gt, k == reflect.Bool)
	case "Record":
		if c.want(at, tt, gt, k == reflect.Map && gt.Key().Kind() == reflect.String && len(tt.Args) == 2) {
			c.compatible(at+"[key]", tt.Args[1], gt.Elem())
		}
	default:
		mt, ok := mirrored[tt.Name]
		if !ok {
			c.problem(at, "type %s mirrors no Go type", tt.Name)
			return
		}
		c.want(at, tt, gt, mt == gt)
	}
}

// want records a problem unless ok; it returns ok.
func (c *mirrorCheck) want(at string, tt *tsType, gt reflect.Type, ok bool) bool {
	if !ok {
		c.problem(at, "%s, but the Go type is %s", tt, gt)
	}
	return ok
}

// jsonFields are the fields encoding/json writes for the struct t (embedded structs' flattened
// in), by name.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported():
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
		case name == "":
			out[f.Name] = f.Type
		default:
			out[name] = f.Type
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
