package report

import (
	"html/template"
	"io"
)

// writeHTML renders d as one self-contained page: inline CSS, no scripts, no network. Every
// value goes through html/template, so a target named "<script>" stays text.
func writeHTML(w io.Writer, d document) error {
	return page.Execute(w, d)
}

var page = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;max-width:62rem;margin:2rem auto;padding:0 1rem;color:#1b1f24;background:#fff}
h1{font-size:1.6rem;margin-bottom:.5rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #d0d7de;padding-bottom:.2rem}
p.headline{font-size:1.15rem;font-weight:600}
table{border-collapse:collapse;margin:.5rem 0;font-variant-numeric:tabular-nums}
th,td{border:1px solid #d0d7de;padding:.25rem .6rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}tr:nth-child(even) td{background:#fbfcfd}
pre{background:#f6f8fa;padding:.75rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
ul{padding-left:1.3rem}
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{range .Blocks}}{{if eq .Kind "h2"}}<h2>{{.Text}}</h2>
{{else if eq .Kind "p"}}<p>{{.Text}}</p>
{{else if eq .Kind "strong"}}<p class="headline">{{.Text}}</p>
{{else if eq .Kind "list"}}<ul>{{range .Items}}<li>{{.}}</li>{{end}}</ul>
{{else if eq .Kind "code"}}<pre><code>{{.Text}}</code></pre>
{{else if eq .Kind "table"}}<table>
<thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{end}}{{end}}</body>
</html>
`))
