// Package fleet runs a measurement's server and load generators on other hosts over OpenSSH
// (harness/remote): it copies what they run, starts the server there, drives one load
// generator per client host from a common start instant, merges their results, and leaves
// nothing running. A library: options in, values out, no flags.
package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/bindrace/bindrace/harness/remote"
	"github.com/bindrace/bindrace/harness/setting"
)

// Options say which hosts a fleet uses and how they are reached.
type Options struct {
	ServerHost  string   // [user@]host[:port]; "" when only the load runs remotely
	ClientHosts []string // one load generator each; none: the load stays local
	SSHConfig   string   // passed to ssh, and rsync's ssh, as -F
	Log         io.Writer
}

// Fleet is an open remote session over the hosts of Options.
type Fleet struct {
	Server  *remote.Host  // nil: the server is local
	Clients []remote.Host // empty: the load is local

	o       Options
	r       *remote.Runner
	s       *remote.Session
	mu      sync.Mutex
	copied  map[string]bool // "host\x00name" already copied this session
	closed  bool
	closeMu sync.Mutex
}

// Open parses the hosts, checks ssh and the config file, and makes the session; hosts are
// contacted when first used. Bad specs are errors naming them and their setting (setting.Error).
func Open(o Options) (*Fleet, error) {
	f := &Fleet{o: o, copied: map[string]bool{}}
	if o.ServerHost != "" {
		h, err := remote.ParseHost(o.ServerHost)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", setting.Errorf("{server_host}"), err)
		}
		f.Server = &h
	}
	for _, c := range o.ClientHosts {
		h, err := remote.ParseHost(c)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", setting.Errorf("{client_hosts}"), err)
		}
		f.Clients = append(f.Clients, h)
	}
	if f.Server == nil && len(f.Clients) == 0 {
		return nil, errors.New("fleet: no host given")
	}
	r, err := remote.NewRunner(remote.Options{ConfigFile: o.SSHConfig})
	if err != nil {
		return nil, err
	}
	s, err := r.NewSession(remote.SessionOptions{})
	if err != nil {
		return nil, err
	}
	f.r, f.s = r, s
	return f, nil
}

// Close stops everything the fleet started on every host and removes its directories; an
// unreachable host is an error naming it (it cleans up by itself once its lifeline falls
// silent). It takes no context, so it works after an interrupt.
func (f *Fleet) Close() error {
	f.closeMu.Lock()
	defer f.closeMu.Unlock()
	if f.closed {
		return nil
	}
	f.closed = true
	return f.s.Close()
}

// copySelf puts this executable (the harness: load generator and `bindrace serve`) at
// bin/bindrace in h's session directory, once per session.
func (f *Fleet) copySelf(ctx context.Context, h remote.Host) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("fleet: this executable: %w", err)
	}
	return f.copyFrom(ctx, h, self, "bin/bindrace")
}

// copyFrom puts the local file or tree at rel in the session directory of h, once per session.
func (f *Fleet) copyFrom(ctx context.Context, h remote.Host, local, rel string) error {
	key := h.String() + "\x00" + rel
	f.mu.Lock()
	done := f.copied[key]
	f.mu.Unlock()
	if done {
		return nil
	}
	if _, err := os.Stat(local); err != nil {
		return fmt.Errorf("host %s: nothing to copy: %w", h, err)
	}
	res, err := f.s.Copy(ctx, h, local, rel)
	if err != nil {
		return err
	}
	if f.o.Log != nil && res.Copied > 0 {
		fmt.Fprintf(f.o.Log, "copied %s to %s (%d file(s), %d bytes)\n", rel, h, res.Copied, res.Bytes)
	}
	f.mu.Lock()
	f.copied[key] = true
	f.mu.Unlock()
	return nil
}

// bindrace is the path of the copied harness on the hosts.
func (f *Fleet) bindrace() string { return f.s.Path("bin/bindrace") }
