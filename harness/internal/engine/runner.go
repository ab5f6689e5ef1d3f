package engine

import (
	"errors"
	"fmt"
	"math"
	"net"
	"runtime"
	"time"

	"github.com/bindrace/bindrace/harness/scenario"
	"golang.org/x/sys/unix"
)

// runner is what the workers of one Run share: read-only configuration, the protocol, and the
// window marks.
type runner struct {
	cfg       Config
	countMode bool
	open      bool             // Config.Rate > 0
	gap       float64          // open loop: mean ns between one connection's intended send times
	schedule  int64            // open loop: nanotime the schedule starts at
	cpu       [2]time.Duration // the process's CPU time when the window opened and closed
	proto     protocol
	family    int
	ip        net.IP
	port      int

	win window
}

// Normalized fills the defaults in and checks what is left: the configuration Run uses
// (workers capped by connections and count; no warm-up in Count mode).
func (c Config) Normalized() (Config, error) {
	if c.Addr == "" {
		return c, errors.New("load: no address")
	}
	switch c.Protocol {
	case HTTP:
		if len(c.Requests) == 0 && c.Build == nil {
			return c, errors.New("load: no request")
		}
		for _, r := range c.Requests {
			if len(r) == 0 {
				return c, errors.New("load: empty request")
			}
		}
	case WebSocket:
		if c.Host == "" {
			c.Host = c.Addr
		}
		if c.Path == "" {
			c.Path = scenario.WSPath
		}
		if c.Size == 0 {
			c.Size = scenario.WSMessageSize
		}
	default:
		return c, fmt.Errorf("load: unknown protocol %d", c.Protocol)
	}
	if c.Connections <= 0 {
		c.Connections = 100
	}
	if c.Pipelining <= 0 {
		c.Pipelining = 1
	}
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	c.Workers = min(c.Workers, c.Connections)
	if c.Count > 0 {
		c.Workers = int(min(int64(c.Workers), c.Count))
		c.Warmup = 0
	} else if c.Duration <= 0 {
		return c, errors.New("load: duration must be positive (or set a count)")
	}
	if c.Warmup < 0 {
		return c, errors.New("load: negative warm-up")
	}
	if c.Timeout <= 0 {
		c.Timeout = defaultTimeout
	}
	switch {
	case math.IsNaN(c.Rate) || math.IsInf(c.Rate, 0) || c.Rate < 0:
		return c, fmt.Errorf("load: rate %v: want a positive number of requests per second (or 0 for a closed loop)", c.Rate)
	case c.Rate == 0:
		return c, c.checkBounds()
	case c.Arrival != Uniform && c.Arrival != Poisson:
		return c, fmt.Errorf("load: unknown %v", c.Arrival)
	case c.LagTolerance < 0:
		return c, errors.New("load: negative lag tolerance")
	case c.LagTolerance == 0:
		c.LagTolerance = time.Millisecond
	}
	return c, c.checkBounds()
}

// share is worker i's part of a normalized configuration: its connections and, in Count
// mode, how many requests it sends.
func (c Config) share(i int) (conns int, count int64) {
	conns = c.Connections/c.Workers + btoi(i < c.Connections%c.Workers)
	if c.Count > 0 {
		count = c.Count/int64(c.Workers) + int64(btoi(int64(i) < c.Count%int64(c.Workers)))
	}
	return conns, count
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func newRunner(cfg Config) (*runner, error) {
	ta, err := net.ResolveTCPAddr("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	if ta.IP == nil {
		ta.IP = net.IPv4(127, 0, 0, 1) // ":port" means this host, as for net.Dial
	}
	r := &runner{cfg: cfg, countMode: cfg.Count > 0, ip: ta.IP, port: ta.Port, family: unix.AF_INET6, open: cfg.Rate > 0}
	if r.open {
		r.gap = float64(cfg.Connections) * 1e9 / cfg.Rate
	}
	if ta.IP.To4() != nil {
		r.family = unix.AF_INET
	}
	switch cfg.Protocol {
	case WebSocket:
		r.proto = newWSProto(cfg)
	default:
		r.proto = newHTTPProto(cfg)
	}
	return r, nil
}

// sockaddr returns a fresh socket address for the target; each worker needs its own, since
// unix.Connect encodes the raw form into a buffer inside it (one shared value would be a data
// race between workers).
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
