// Package report renders a saved session directory for people and tools: a release-page style
// markdown and HTML report, a CSV of every run, summary.json as is, and the Go benchmark format
// for benchstat. Everything is re-rendered from the files on disk, so a report can be rebuilt
// (or re-gated) long after the run.
package report

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"

	"github.com/bindrace/bindrace/harness/report/page"
	"github.com/bindrace/bindrace/harness/session"
)

// Formats lists what Render accepts.
var Formats = []string{"md", "html", "csv", "json", "benchfmt"}

// Render writes the session in dir to w in the given format ("" means md).
func Render(dir, format string, w io.Writer) error {
	sd, err := load(dir)
	if err != nil {
		return err
	}
	return render(sd, format, w)
}

func render(sd *sessionDir, format string, w io.Writer) error {
	switch format {
	case "", "md", "markdown":
		return writeMarkdown(w, buildDocument(sd))
	case "html":
		html, err := page.Render(sd.summaryJSON, sd.rawJSON, sd.manifestJSON)
		if err != nil {
			return err
		}
		_, err = w.Write(html)
		return err
	case "csv":
		return writeCSV(w, sd)
	case "json":
		_, err := w.Write(sd.summaryJSON)
		return err
	case "benchfmt":
		if sd.sweep != nil {
			return fmt.Errorf("report: a sweep fixes its rates, so it has no throughput for benchfmt; use md, csv or json")
		}
		return writeBenchfmt(w, sd)
	}
	return fmt.Errorf("report: unknown format %q (want one of %v)", format, Formats)
}

func buildDocument(sd *sessionDir) document {
	if sd.matrix != nil {
		return matrixDocument(sd)
	}
	if sd.sweep != nil {
		return sweepDocument(sd)
	}
	if sd.scale != nil {
		return scaleDocument(sd)
	}
	return raceDocument(sd)
}

// WriteAll writes summary.md, summary.csv and report.html into dir, a folder the harness wrote
// (RewriteSession checks that of a saved one). summary.json is the orchestrator's; it is read
// here, never rewritten. Each file is rendered in memory first and written by session.WriteFile,
// so a failure leaves the report that was there.
func WriteAll(dir string) error {
	sd, err := load(dir)
	if err != nil {
		return err
	}
	for _, f := range []struct{ name, format string }{
		{"summary.md", "md"}, {"summary.csv", "csv"}, {"report.html", "html"},
	} {
		var buf bytes.Buffer
		if err := render(sd, f.format, &buf); err != nil {
			return fmt.Errorf("report: %s: %w", f.name, err)
		}
		if err := session.WriteFile(filepath.Join(dir, f.name), buf.Bytes()); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	return nil
}
