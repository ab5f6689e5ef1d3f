package page

import (
	"fmt"
	"strings"
	"unicode"
)

// tsDecl is one `export interface` of a TypeScript file: its name, what it extends and its
// fields; or, for `export type Name = …`, its name and type (Alias).
type tsDecl struct {
	Name    string
	Extends []string
	Fields  []tsField
	Alias   *tsType
}

type tsField struct {
	Name     string
	Optional bool
	Type     *tsType
}

// tsType is a parsed TypeScript type: Kind is "name" (number, string, Run, Record…, with Args),
// "literal" (a string literal), "array" (Elem[]), "tuple" (Args), "object" (Fields), "union"
// or "intersection" (Args).
type tsType struct {
	Kind   string
	Name   string
	Args   []*tsType
	Elem   *tsType
	Fields []tsField
}

func (t *tsType) String() string {
	switch t.Kind {
	case "literal":
		return `"` + t.Name + `"`
	case "array":
		return t.Elem.String() + "[]"
	case "object":
		return "{…}"
	case "union", "intersection", "tuple":
		sep := map[string]string{"union": " | ", "intersection": " & ", "tuple": ", "}[t.Kind]
		var parts []string
		for _, a := range t.Args {
			parts = append(parts, a.String())
		}
		s := strings.Join(parts, sep)
		if t.Kind == "tuple" {
			s = "[" + s + "]"
		}
		return s
	}
	if len(t.Args) > 0 {
		var parts []string
		for _, a := range t.Args {
			parts = append(parts, a.String())
		}
		return t.Name + "<" + strings.Join(parts, ", ") + ">"
	}
	return t.Name
}

// parseTSDecls reads the exported interfaces and type aliases of a declarations-only
// TypeScript file (types.ts): the small part of the grammar such a file uses.
func parseTSDecls(src string) ([]tsDecl, error) {
	p := &tsParser{toks: tsTokens(src)}
	var decls []tsDecl
	for !p.done() {
		if err := p.expect("export"); err != nil {
			return nil, err
		}
		switch kw := p.next(); kw {
		case "interface":
			d := tsDecl{Name: p.next()}
			if p.peek() == "extends" {
				p.next()
				for d.Extends = append(d.Extends, p.next()); p.peek() == ","; d.Extends = append(d.Extends, p.next()) {
					p.next()
				}
			}
			fields, err := p.object()
			if err != nil {
				return nil, fmt.Errorf("interface %s: %w", d.Name, err)
			}
			d.Fields = fields
			decls = append(decls, d)
		case "type":
			d := tsDecl{Name: p.next()}
			if err := p.expect("="); err != nil {
				return nil, err
			}
			t, err := p.typ()
			if err != nil {
				return nil, fmt.Errorf("type %s: %w", d.Name, err)
			}
			d.Alias = t
			decls = append(decls, d)
			if p.peek() == ";" {
				p.next()
			}
		default:
			return nil, fmt.Errorf("export %q: only interfaces and types are expected", kw)
		}
	}
	return decls, nil
}

// tsTokens splits src into identifiers, string literals (with their quotes) and punctuation,
// dropping comments.
func tsTokens(src string) []string {
	var toks []string
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return append(toks, "/*")
			}
			i += end + 4
		case c == '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				j++
			}
			toks = append(toks, src[i:min(j+1, len(src))])
			i = j + 1
		case unicode.IsSpace(rune(c)):
			i++
		case c == '_' || c == '$' || unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)):
			j := i
			for j < len(src) && (src[j] == '_' || src[j] == '$' || unicode.IsLetter(rune(src[j])) || unicode.IsDigit(rune(src[j]))) {
				j++
			}
			toks = append(toks, src[i:j])
			i = j
		default:
			toks = append(toks, string(c))
			i++
		}
	}
	return toks
}

type tsParser struct {
	toks []string
	i    int
}

func (p *tsParser) done() bool { return p.i >= len(p.toks) }

func (p *tsParser) peek() string {
	if p.done() {
		return ""
	}
	return p.toks[p.i]
}

func (p *tsParser) next() string {
	t := p.peek()
	p.i++
	return t
}

func (p *tsParser) expect(tok string) error {
	if got := p.next(); got != tok {
		return fmt.Errorf("expected %q, got %q (token %d)", tok, got, p.i)
	}
	return nil
}

// object parses `{ name?: type; … }`.
func (p *tsParser) object() ([]tsField, error) {
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	var fields []tsField
	for p.peek() != "}" {
		if p.done() {
			return nil, fmt.Errorf("unclosed {")
		}
		f := tsField{Name: p.next()}
		if p.peek() == "?" {
			p.next()
			f.Optional = true
		}
		if err := p.expect(":"); err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		t, err := p.typ()
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		f.Type = t
		fields = append(fields, f)
		if p.peek() == ";" || p.peek() == "," {
			p.next()
		}
	}
	p.next()
	return fields, nil
}

// typ parses a union of intersections of postfix types.
func (p *tsParser) typ() (*tsType, error) {
	return p.joined("|", "union", func() (*tsType, error) { return p.joined("&", "intersection", p.postfix) })
}

func (p *tsParser) joined(sep, kind string, part func() (*tsType, error)) (*tsType, error) {
	t, err := part()
	if err != nil || p.peek() != sep {
		return t, err
	}
	all := &tsType{Kind: kind, Args: []*tsType{t}}
	for p.peek() == sep {
		p.next()
		t, err := part()
		if err != nil {
			return nil, err
		}
		all.Args = append(all.Args, t)
	}
	return all, nil
}

func (p *tsParser) postfix() (*tsType, error) {
	t, err := p.primary()
	for err == nil && p.peek() == "[" && p.i+1 < len(p.toks) && p.toks[p.i+1] == "]" {
		p.i += 2
		t = &tsType{Kind: "array", Elem: t}
	}
	return t, err
}

func (p *tsParser) primary() (*tsType, error) {
	switch tok := p.peek(); {
	case tok == "{":
		fields, err := p.object()
		return &tsType{Kind: "object", Fields: fields}, err
	case tok == "[" || tok == "(":
		p.next()
		var args []*tsType
		for {
			t, err := p.typ()
			if err != nil {
				return nil, err
			}
			args = append(args, t)
			if p.peek() != "," {
				break
			}
			p.next()
		}
		if tok == "(" {
			return args[0], p.expect(")")
		}
		return &tsType{Kind: "tuple", Args: args}, p.expect("]")
	case strings.HasPrefix(tok, `"`):
		p.next()
		return &tsType{Kind: "literal", Name: strings.Trim(tok, `"`)}, nil
	case tok == "" || strings.ContainsAny(tok[:1], "{}[]()<>,;:?|&="):
		return nil, fmt.Errorf("expected a type, got %q", tok)
	}
	t := &tsType{Kind: "name", Name: p.next()}
	if p.peek() == "<" {
		p.next()
		for {
			a, err := p.typ()
			if err != nil {
				return nil, err
			}
			t.Args = append(t.Args, a)
			if p.peek() != "," {
				break
			}
			p.next()
		}
		return t, p.expect(">")
	}
	return t, nil
}
