package report

// The markdown report is a document built once per session kind: builders decide what to say,
// the renderer only how to mark it up. The HTML page (package page) renders summary.json in the
// browser. Neither computes a statistic: both show the fields stats, race and gate stored in the
// session (see session.Summary), so the two cannot disagree on a figure.

type document struct {
	Title  string
	Blocks []block
}

// block is one element of the document; Kind says which fields are used.
type block struct {
	Kind  string     // "h2", "p", "strong", "list", "table", "code", "text" (preformatted)
	Text  string     // h2, p, strong, code, text
	Items []string   // list
	Head  []string   // table
	Rows  [][]string // table
}

func (d *document) h2(s string)     { d.Blocks = append(d.Blocks, block{Kind: "h2", Text: s}) }
func (d *document) p(s string)      { d.Blocks = append(d.Blocks, block{Kind: "p", Text: s}) }
func (d *document) strong(s string) { d.Blocks = append(d.Blocks, block{Kind: "strong", Text: s}) }
func (d *document) list(items ...string) {
	d.Blocks = append(d.Blocks, block{Kind: "list", Items: items})
}
func (d *document) code(s string) { d.Blocks = append(d.Blocks, block{Kind: "code", Text: s}) }
func (d *document) text(s string) { d.Blocks = append(d.Blocks, block{Kind: "text", Text: s}) }
func (d *document) table(head []string, rows [][]string) {
	d.Blocks = append(d.Blocks, block{Kind: "table", Head: head, Rows: rows})
}
