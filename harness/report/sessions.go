package report

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/bindrace/bindrace/harness/session"
)

// RenderSession prints a saved session in one format; a race set prints each sub-session in
// turn, except for json, which prints the set's index.json.
func RenderSession(w io.Writer, dir, format string) error {
	kind, err := session.Kind(dir)
	if err != nil {
		return err
	}
	if kind != "race-set" {
		return renderOne(w, dir, format)
	}
	ix, err := session.LoadIndex(dir)
	if err != nil {
		return err
	}
	if format == "json" {
		return renderOne(w, dir, format)
	}
	if c := ix.Pooled; c != nil && (format == "" || format == "md" || format == "markdown") {
		// The set's own check: no sub-session's page shows it.
		fmt.Fprintf(w, "# %s\n\n%s: %s\n\n", ix.Headline, c.Reason, c.Verdict)
	}
	for i, e := range ix.Sessions {
		if i > 0 && (format == "md" || format == "benchfmt") {
			fmt.Fprintln(w)
		}
		if err := renderOne(w, filepath.Join(dir, e.Dir), format); err != nil {
			return err
		}
	}
	return nil
}

// renderOne prints one session in one format. The json format of a race set is its index.json.
func renderOne(w io.Writer, dir, format string) error {
	if format == "json" {
		if _, err := os.Stat(filepath.Join(dir, session.IndexFile)); err == nil {
			b, err := os.ReadFile(filepath.Join(dir, session.IndexFile))
			if err != nil {
				return err
			}
			_, err = w.Write(b)
			return err
		}
	}
	return Render(dir, format, w)
}

// RewriteSession re-renders a saved session's report files (WriteAll), for each sub-session of
// a race set. Every folder's files are decoded before any report is written: a summary.json that
// does not carry bindrace's kind (so not bindrace's folder) or does not decode is refused, and a
// bad sub-session leaves the others' reports as they were.
func RewriteSession(dir string) error {
	dirs, err := reportDirs(dir)
	if err != nil {
		return err
	}
	for _, d := range dirs {
		if _, err := load(d); err != nil {
			return err
		}
	}
	var errs []error
	for _, d := range dirs {
		errs = append(errs, WriteAll(d))
	}
	return errors.Join(errs...)
}

// reportDirs are the folders a saved session's reports go to: dir, or each sub-session's of a
// race set.
func reportDirs(dir string) ([]string, error) {
	kind, err := session.Kind(dir)
	if err != nil {
		return nil, err
	}
	if kind != "race-set" {
		return []string{dir}, nil
	}
	ix, err := session.LoadIndex(dir)
	if err != nil {
		return nil, err
	}
	dirs := make([]string, len(ix.Sessions))
	for i, e := range ix.Sessions {
		dirs[i] = filepath.Join(dir, e.Dir)
	}
	return dirs, nil
}
