package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/bindrace/bindrace/harness/internal/interrupt"
	"github.com/bindrace/bindrace/harness/targets"
	"github.com/bindrace/bindrace/harness/targets/template"
)

const targetUsage = `Usage: bindrace target list [--markdown] [--targets-dir DIR]
       bindrace target prepare NAME… [--targets-dir DIR]
       bindrace target new NAME --runtime go|node [--dir DIR]

Targets are definition files (docs/targets.md): the built-in ones in harness/targets/builtin,
and yours in folders given with --targets-dir (or one file named by its path).

  list     every target known: name, runtime, scenarios claimed, what it is (--markdown: the
           README's table)
  new      write a new target's folder (DIR, default ./NAME): a scenario server for the runtime
           that passes verify, its target.json and a README; refused if DIR holds anything
  prepare  run each target's prepare command (a build, an install) when what it produces is
           missing; a failure names the command, its exit status and its last lines

Exit status: 0 done, 2 bad input or a preparation that failed.`

// targetCommand is `bindrace target`.
func targetCommand(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("target", stderr)
	addTargetFlags(fs)
	markdown := fs.Bool("markdown", false, "list: as the README's Markdown table")
	runtime := fs.String("runtime", "", "new: the template's runtime, "+strings.Join(template.Runtimes(), " or "))
	dir := fs.String("dir", "", "new: the folder to write (default ./NAME)")
	if code, done := parse(fs, "target", targetUsage, args, stdout, stderr); done {
		return code
	}
	sub, names := fs.Arg(0), fs.Args()
	if len(names) > 0 {
		names = names[1:]
	}
	switch {
	case sub == "list" && len(names) == 0 && *markdown:
		fmt.Fprint(stdout, targetsTable())
		return 0
	case sub == "list" && len(names) == 0:
		listTargets(stdout)
		return 0
	case sub == "new" && len(names) == 1:
		return newTarget(names[0], *runtime, *dir, stdout, stderr)
	case sub == "prepare" && len(names) > 0:
		return prepareTargets(names, stdout, stderr)
	}
	fmt.Fprintf(stderr, "bindrace target: want `list`, `new NAME` or `prepare NAME…`, got %q\nRun 'bindrace target --help' for usage.\n", strings.Join(fs.Args(), " "))
	return 2
}

func listTargets(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tRUNTIME\tSCENARIOS\tWHAT")
	for _, d := range targets.Definitions() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", d.Name, d.Runtime, strings.Join(d.Scenarios, ","), d.About)
	}
	tw.Flush()
}

// targetsTable is the README's table of targets, made from their definitions.
func targetsTable() string {
	var b strings.Builder
	b.WriteString("| name | runtime | scenarios | what |\n|---|---|---|---|\n")
	for _, d := range targets.Definitions() {
		scs := strings.Join(d.Scenarios, ", ")
		if scs == "*" {
			scs = "all"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", d.Name, d.Runtime, scs, d.About)
	}
	b.WriteString("| `cmd:<command with {port}>` | — | all | any external server, e.g. your own reference build (also from env `BINDRACE_REFERENCE`) |\n")
	return b.String()
}

// newTarget writes a target's folder from the runtime's template.
func newTarget(name, runtime, dir string, stdout, stderr io.Writer) int {
	if dir == "" {
		dir = name
	}
	paths, err := template.Write(dir, name, runtime)
	if err != nil {
		return fail(stderr, "target new", err)
	}
	for _, p := range paths {
		fmt.Fprintln(stdout, "wrote", p)
	}
	def := filepath.Join(dir, "target.json")
	fmt.Fprintf(stdout, "next: bin/bindrace target prepare %s && bin/bindrace verify --target %s\n", def, def)
	return 0
}

func prepareTargets(names []string, stdout, stderr io.Writer) int {
	ctx, stop := interrupt.Context(interrupt.Servers, interrupt.Handlers{})
	defer stop()
	for _, n := range names {
		if _, err := targets.PrepareTarget(ctx, n, stderr); err != nil {
			return fail(stderr, "target prepare", err)
		}
		fmt.Fprintf(stdout, "ready  %s\n", n)
	}
	return 0
}
