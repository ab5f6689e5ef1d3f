package load

import (
	"errors"
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// runner is what the workers of one Run share: read-only configuration plus the window marks.
type runner struct {
	cfg       Config
	countMode bool
	ip        net.IP
	port      int
	batches   [][]byte // batches[s]: Pipelining requests starting with Requests[s], back to back
	ends      [][]int  // ends[s][k]: where request k of batches[s] ends

	win Window
}

func (c Config) normalized() (Config, error) {
	if c.Addr == "" {
		return c, errors.New("load: no address")
	}
	if len(c.Requests) == 0 {
		return c, errors.New("load: no request")
	}
	for _, r := range c.Requests {
		if len(r) == 0 {
			return c, errors.New("load: empty request")
		}
	}
	s, err := c.Shape().Normalized()
	c.setShape(s)
	return c, err
}

func newRunner(cfg Config) (*runner, error) {
	ta, err := net.ResolveTCPAddr("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	if ta.IP == nil {
		ta.IP = net.IPv4(127, 0, 0, 1) // ":port" means this host, as for net.Dial
	}
	r := &runner{cfg: cfg, countMode: cfg.Count > 0, ip: ta.IP, port: ta.Port}
	// One ready-made batch per round-robin starting point: a batch is a single prebuilt
	// slice, so sending one is one syscall and no copying.
	n := len(cfg.Requests)
	r.batches, r.ends = make([][]byte, n), make([][]int, n)
	for s := range n {
		for k := range cfg.Pipelining {
			r.batches[s] = append(r.batches[s], cfg.Requests[(s+k)%n]...)
			r.ends[s] = append(r.ends[s], len(r.batches[s]))
		}
	}
	return r, nil
}

func (r *runner) family() int {
	if r.ip.To4() != nil {
		return unix.AF_INET
	}
	return unix.AF_INET6
}

// sockaddr returns a fresh socket address for the target; each worker needs its own, since
// unix.Connect fills in the raw form inside it.
func (r *runner) sockaddr() unix.Sockaddr {
	if ip4 := r.ip.To4(); ip4 != nil {
		sa := &unix.SockaddrInet4{Port: r.port}
		copy(sa.Addr[:], ip4)
		return sa
	}
	sa := &unix.SockaddrInet6{Port: r.port}
	copy(sa.Addr[:], r.ip.To16())
	return sa
}
