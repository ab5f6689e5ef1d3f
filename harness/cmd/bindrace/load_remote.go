package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/bindrace/bindrace/harness/fleet"
	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/remote"
)

// remoteLoadFlags are `bindrace load`'s flags for other hosts: where its generators run, and
// (for a generator started by another bindrace) when to start.
type remoteLoadFlags struct {
	clients, sshConfig, startAt string
}

func (r *remoteLoadFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&r.clients, "client-hosts", "", "run one load generator on each of these hosts, [user@]host[:port] comma-separated, over ssh; the results are merged")
	fs.StringVar(&r.sshConfig, "ssh-config", "", "ssh config file for --client-hosts (passed to ssh, and rsync's ssh, as -F)")
	fs.StringVar(&r.startAt, "start-at", "", "start at this instant (RFC 3339, set by a harness starting generators on several hosts)")
}

// waitStart sleeps until --start-at, if given (a generator of a multi-host load).
func (r *remoteLoadFlags) waitStart() error {
	if r.startAt == "" {
		return nil
	}
	at, err := remote.ParseStartAt(r.startAt)
	if err != nil {
		return fmt.Errorf("--start-at: %w", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := remote.SleepUntil(ctx, at); err != nil {
		return fmt.Errorf("--start-at: %w", err)
	}
	return nil
}

// runRemoteLoad runs the load from every --client-hosts host at once and prints the merged
// result like a local one, each host's figures on stderr. A host that fails is exit 2 naming
// it; what the others measured is printed and marked incomplete.
func runRemoteLoad(stdout, stderr io.Writer, lf *loadFlags, cfg load.Config, sum loadSummary) int {
	if cfg.Count > 0 {
		return loadBad(stderr, "--client-hosts drives windows only (no --count)")
	}
	if !lf.workersGiven {
		cfg.Workers = 0 // each host its own default: its CPUs
	}
	f, err := fleet.Open(fleet.Options{ClientHosts: splitList(lf.remote.clients), SSHConfig: lf.remote.sshConfig, Log: stderr})
	if err != nil {
		return loadBad(stderr, "%s", flagWords(err))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, parts, runErr := f.RunLoad(ctx, fleet.Drive{Config: cfg}, load.Hooks{})
	if cerr := f.Close(); cerr != nil {
		runErr = errors.Join(runErr, cerr)
	}
	for _, p := range parts {
		fmt.Fprintf(stderr, "host %s: %.1f %s, %d responses, p99 %.2f ms\n", p.Host, p.Result.RPS, sum.Unit, p.Result.Responses, p.Result.Latency.P99)
	}
	if res == nil {
		return loadBad(stderr, "%v", runErr)
	}
	return printLoad(stdout, stderr, res, cfg, sum, lf.json, runErr)
}
