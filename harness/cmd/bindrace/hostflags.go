package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/bindrace/bindrace/harness/fleet"
)

// hostFlags are the flags that put a session's server and load generators on other hosts.
type hostFlags struct {
	server, clients, sshConfig string
}

func addHostFlags(fs *pflag.FlagSet) *hostFlags {
	h := &hostFlags{}
	fs.StringVar(&h.server, "server-host", "", "run the servers on this host over ssh, [user@]host[:port] (default: here, on loopback); the name must resolve on the client hosts")
	fs.StringVar(&h.clients, "client-hosts", "", "run one load generator on each of these hosts over ssh, comma-separated (needs --server-host; default: here)")
	fs.StringVar(&h.sshConfig, "ssh-config", "", "ssh config file for the hosts (passed to ssh, and rsync's ssh, as -F)")
	return h
}

// open opens the fleet the flags ask for (nil, nil when they ask for none). Errors name the
// flag or host; the caller prints them and exits 2.
func (h *hostFlags) open(log io.Writer) (*fleet.Fleet, error) {
	if h.server == "" && h.clients == "" {
		if h.sshConfig != "" {
			return nil, fmt.Errorf("--ssh-config is for --server-host and --client-hosts")
		}
		return nil, nil
	}
	if h.server == "" {
		return nil, fmt.Errorf("--client-hosts needs --server-host: a local server listens on loopback only")
	}
	return fleet.Open(fleet.Options{ServerHost: h.server, ClientHosts: splitList(h.clients), SSHConfig: h.sshConfig, Log: log})
}

// closeFleet closes f after a session; a host that could not be cleaned up is named and the
// exit status becomes 2.
func closeFleet(f *fleet.Fleet, code int, stderr io.Writer, cmd string) int {
	if f == nil {
		return code
	}
	if err := f.Close(); err != nil {
		fmt.Fprintf(stderr, "bindrace %s: %v\n", cmd, err)
		return 2
	}
	return code
}
