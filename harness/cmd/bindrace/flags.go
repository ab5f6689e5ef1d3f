package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/bindrace/bindrace/harness/internal/interrupt"
	"github.com/bindrace/bindrace/harness/kinds"
	"github.com/bindrace/bindrace/harness/measure"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/setting"
	"github.com/bindrace/bindrace/harness/targets"
)

// defaultProfile is the profile race and matrix use without --profile.
const defaultProfile = "quick"

// newFlagSet makes a flag set whose errors the command reports itself.
func newFlagSet(name string, stderr io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	fs.Usage = func() {}
	return fs
}

// parse parses args; it returns (exit, done): done with exit 0 after --help, 2 on a bad flag.
func parse(fs *pflag.FlagSet, cmd, usage string, args []string, stdout, stderr io.Writer) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			withBounds(fs)
			fmt.Fprintf(stdout, "%s\n\nFlags:\n%s", usage, fs.FlagUsages())
			return 0, true
		}
		fmt.Fprintf(stderr, "bindrace %s: %v\nRun 'bindrace %s --help' for usage.\n", cmd, err, cmd)
		return 2, true
	}
	return 0, false
}

// parseNoArgs is parse for a command that takes flags only: an argument is an error (exit 2).
func parseNoArgs(fs *pflag.FlagSet, cmd, usage string, args []string, stdout, stderr io.Writer) (int, bool) {
	if code, done := parse(fs, cmd, usage, args, stdout, stderr); done {
		return code, true
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "bindrace %s: unexpected argument %q\nRun 'bindrace %s --help' for usage.\n", cmd, fs.Arg(0), cmd)
		return 2, true
	}
	return 0, false
}

func openServerLog(path string, stderr io.Writer) (io.Writer, func(), error) {
	switch path {
	case "":
		return nil, func() {}, nil
	case "-":
		return stderr, func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--server-log: %w", err)
	}
	return f, func() { f.Close() }, nil
}

// prepare sets a race, matrix, noise or calibrate command up once its arguments are checked:
// it loads the profile, checks its outputs (before anything runs) and opens the server log,
// and returns them with a context that SIGINT
// and SIGTERM cancel (a second signal stops every server at once and exits 2) and done, which
// stops every server still running, the signal handling and the log, in that order. ok false:
// the error is printed, exit 2.
func prepare(cmd string, fs *pflag.FlagSet, pf *profileFlags, outs outputs, stderr io.Writer) (ctx context.Context, p *profile.Profile,
	logw io.Writer, done func(), ok bool) {
	p, err := pf.load(fs)
	if err == nil {
		err = outs.check(p.Path)
	}
	if err != nil {
		fail(stderr, cmd, err)
		return nil, nil, nil, nil, false
	}
	logw, closeLog, err := openServerLog(outs.serverLog, stderr)
	if err != nil {
		fail(stderr, cmd, err)
		return nil, nil, nil, nil, false
	}
	ctx, stop := interrupt.Context(interrupt.Commands, interrupt.Handlers{
		First: func(name string) {
			fmt.Fprintf(stderr, "\nbindrace: %s: stopping servers and saving what was measured (again to quit at once)\n", name)
		},
		Again: func() {
			targets.StopAll()
			fmt.Fprintln(stderr, "bindrace: second signal: servers stopped, exiting")
			os.Exit(2)
		},
	})
	return ctx, p, logw, func() {
		targets.StopAll()
		stop()
		closeLog()
	}, true
}

// outputFlags say where a session's files go and what it prints: every session command
// (race, matrix, scale, sweep) takes them.
type outputFlags struct {
	outputs
	json bool
}

// register adds the output flags to fs; outName is the session directory's default name after
// the timestamp.
func (f *outputFlags) register(fs *pflag.FlagSet, outName string) {
	fs.StringVar(&f.out, "out", "", "session directory (default results/<timestamp>-"+outName+")")
	fs.BoolVar(&f.json, "json", false, "print summary.json on stdout and nothing else (progress goes to stderr)")
	fs.StringVar(&f.serverLog, "server-log", "", `copy the servers' output to this file ("-" = stderr)`)
	fs.BoolVar(&f.force, "force", false, "write into an --out folder that holds files already (replacing a session there) and over an existing --server-log file")
}

// options are the session options every session command fills from its output flags, with
// the output their events go to.
func (f *outputFlags) options(fs *pflag.FlagSet, p *profile.Profile, serverLog, stderr io.Writer) (kinds.Options, *sessionOutput) {
	out := newSessionOutput(stderr)
	return kinds.Options{Profile: p, Given: givenSettings(fs), Out: f.out, Force: f.force, Command: os.Args, ServerLog: serverLog, Events: out.event}, out
}

// sessionFlags are what race and matrix take beyond the output flags: the seed, and the
// database and hosts the session runs on.
type sessionFlags struct {
	outputFlags
	seed  int64
	db    *measure.DBOptions
	hosts *hostFlags
}

// addSessionFlags registers the session flags; seeds says what the seed draws.
func addSessionFlags(fs *pflag.FlagSet, outName, seeds string) *sessionFlags {
	f := &sessionFlags{}
	f.register(fs, outName)
	fs.Int64Var(&f.seed, "seed", 0, "seed of "+seeds+" (default time-based; recorded)")
	f.db = addDBFlags(fs)
	f.hosts = addHostFlags(fs)
	return f
}

// runSession runs a race or a matrix once its own flags are checked: it checks the outputs and
// the database flags, opens the hosts, loads the profile and gives the database the server log, then calls
// run with the options the session flags fill (run adds the command's own) and closes the
// hosts. It returns the exit status, 2 when the set-up failed (the error printed).
func runSession(cmd string, fs *pflag.FlagSet, pf *profileFlags, sf *sessionFlags, stderr io.Writer,
	run func(context.Context, kinds.Options, *sessionOutput) int) int {
	if err := sf.check(); err != nil { // before the hosts open; prepare checks again, with the profile read
		return fail(stderr, cmd, err)
	}
	if err := sf.db.Check(); err != nil {
		return fail(stderr, cmd, err)
	}
	fl, err := sf.hosts.open(stderr)
	if err != nil {
		return fail(stderr, cmd, err)
	}
	ctx, p, logw, done, ok := prepare(cmd, fs, pf, sf.outputs, stderr)
	if !ok {
		return closeFleet(fl, 2, stderr, cmd)
	}
	defer done()
	sf.db.Log = logw
	o, out := sf.options(fs, p, logw, stderr)
	o.Seed, o.SeedSet, o.DB, o.Fleet = sf.seed, fs.Changed("seed"), *sf.db, fl
	return closeFleet(fl, run(ctx, o, out), stderr, cmd)
}

// fail prints a command's error, its settings worded as the flags that set them; exit 2.
func fail(stderr io.Writer, cmd string, err error) int {
	fmt.Fprintf(stderr, "bindrace %s: %s\n", cmd, flagWords(err))
	return 2
}

// flagWords is err's text with the setting it names (setting.Error) written as its flag.
func flagWords(err error) string { return setting.Words(err, flagOf) }

// flagOf is the flag that sets a setting: "db_scale" is --db-scale; a few flags are named for
// one value of a list setting.
func flagOf(name string) string {
	switch name {
	case "thresholds":
		return "--threshold"
	case "scenarios":
		return "--scenario"
	}
	return "--" + strings.ReplaceAll(name, "_", "-")
}

// givenSettings are the settings the flags given set (by setting name): the defaults the user
// did not choose, which a session may adapt.
func givenSettings(fs *pflag.FlagSet) map[string]bool {
	given := map[string]bool{}
	fs.Visit(func(f *pflag.Flag) { given[strings.ReplaceAll(f.Name, "-", "_")] = true })
	return given
}

// withBounds adds to the help of every flag that sets a bounded resource its bound on this
// machine (setting.Bounds), once.
func withBounds(fs *pflag.FlagSet) {
	fs.VisitAll(func(f *pflag.Flag) {
		b, ok := setting.BoundOf(strings.ReplaceAll(f.Name, "-", "_"))
		if ok && !strings.HasSuffix(f.Usage, " here]") {
			f.Usage += " [" + b.Text() + "]"
		}
	})
}
