package targets

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// ServeOptions say how Serve runs a target in the foreground.
type ServeOptions struct {
	Port    int       // 0: a free port
	Threads int       // event loops for binding, GOMAXPROCS for fasthttp/nethttp; 0: the default
	Log     io.Writer // a spawned server's output
	Listen  string    // the IP address to listen on; "": loopback
	// Ready, if set, gets the ready line (Ready) once the server listens.
	Ready io.Writer
}

// Serve runs t's scenario server in the foreground until ctx is cancelled, then stops it
// gracefully with Stop. Signals reach the server through Stop, which signals its whole process
// group (it runs in its own, so a terminal's Ctrl-C would miss it).
func Serve(ctx context.Context, t *Target, o ServeOptions) error {
	s, err := t.Start(ctx, StartOptions{Port: o.Port, Threads: o.Threads, Log: o.Log, Listen: o.Listen})
	if err != nil {
		return err
	}
	if err := o.ready(newReady(t.Name, s.Listen, s.Port, s.Pid, s.Startup)); err != nil {
		s.Stop()
		return err
	}
	select {
	case <-ctx.Done():
		return s.Stop()
	case <-s.Exited():
		err := fmt.Errorf("%s exited on its own: %v", t.Name, s.ExitError())
		s.Stop()
		return err
	}
}

// ready prints the ready line, if o asks for it.
func (o ServeOptions) ready(r Ready) error {
	if o.Ready == nil {
		return nil
	}
	return r.write(o.Ready)
}

// TargetHelp lists the target names for a flag's help, from the definitions known.
func TargetHelp() string {
	return strings.Join(Names(), ", ") + ", cmd:<command with {port}>, or a definition file's path"
}
