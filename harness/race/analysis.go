package race

import (
	"io"
	"os"
	"path/filepath"

	"github.com/bindrace/bindrace/harness/report"
	"github.com/bindrace/bindrace/harness/session"
)

// writeReports renders summary.md, summary.csv and report.html from the session files in dir.
func writeReports(dir string) error { return report.WriteAll(dir) }

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
	return report.Render(dir, format, w)
}
