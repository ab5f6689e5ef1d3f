// Package setting lets a domain package say which setting bad input was in without knowing how
// the user gave it: a flag, a profile field, an option of a library call. An Error's text names
// each setting as {name} (the profile's field name, or the option's); Error writes the bare
// name, and a front end renders it as its user knows it (the CLI: as the flag that sets it).
package setting

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Error is bad input in one or more settings.
type Error struct {
	format string // holds the {name}s; the args are the values, never rewritten
	args   []any
}

// Errorf is an Error whose format names settings as {name}, e.g.
// Errorf("{rate} must be above 0 requests/s (got %g)", r).
func Errorf(format string, args ...any) *Error { return &Error{format: format, args: args} }

var placeholder = regexp.MustCompile(`\{([a-z][a-z0-9_.]*)\}`)

// Error writes each setting by its own name.
func (e *Error) Error() string { return e.Render(func(name string) string { return name }) }

// Render writes the message with each setting as name(setting) spells it.
func (e *Error) Render(name func(setting string) string) string {
	f := placeholder.ReplaceAllStringFunc(e.format, func(m string) string {
		return strings.ReplaceAll(name(m[1:len(m)-1]), "%", "%%")
	})
	return fmt.Sprintf(f, e.args...)
}

// Settings are the settings the message names, in order.
func (e *Error) Settings() []string {
	var out []string
	for _, m := range placeholder.FindAllStringSubmatch(e.format, -1) {
		out = append(out, m[1])
	}
	return out
}

// Words is err's text with the first Error inside it rendered by name (the text of any error
// wrapping it kept as it is); err's own text when it holds none.
func Words(err error, name func(setting string) string) string {
	var se *Error
	if !errors.As(err, &se) {
		return err.Error()
	}
	return strings.Replace(err.Error(), se.Error(), se.Render(name), 1)
}
