package report

import (
	"fmt"
	"io"
	"strings"
)

// writeMarkdown renders d as GitHub-flavoured markdown.
func writeMarkdown(w io.Writer, d document) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", mdText(d.Title))
	for _, bl := range d.Blocks {
		b.WriteString("\n")
		switch bl.Kind {
		case "h2":
			fmt.Fprintf(&b, "## %s\n", mdText(bl.Text))
		case "p":
			fmt.Fprintf(&b, "%s\n", mdText(bl.Text))
		case "strong":
			fmt.Fprintf(&b, "**%s**\n", mdText(bl.Text))
		case "list":
			for _, it := range bl.Items {
				fmt.Fprintf(&b, "- %s\n", mdText(it))
			}
		case "code", "text":
			// A fence longer than any backtick run inside keeps the command intact.
			fence := "```"
			for strings.Contains(bl.Text, fence) {
				fence += "`"
			}
			lang := "sh"
			if bl.Kind == "text" {
				lang = "text"
			}
			fmt.Fprintf(&b, "%s%s\n%s\n%s\n", fence, lang, bl.Text, fence)
		case "table":
			mdRow(&b, bl.Head)
			sep := make([]string, len(bl.Head))
			for i := range sep {
				sep[i] = "---"
			}
			mdRow(&b, sep)
			for _, r := range bl.Rows {
				mdRow(&b, r)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdRow(b *strings.Builder, cells []string) {
	b.WriteString("|")
	for _, c := range cells {
		b.WriteString(" " + strings.ReplaceAll(mdText(c), "|", `\|`) + " |")
	}
	b.WriteString("\n")
}

// mdText keeps user-supplied text (target names, reasons) on one line and stops raw HTML in it
// from being interpreted by a markdown renderer.
func mdText(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "<", "&lt;", ">", "&gt;").Replace(s)
	return s
}
