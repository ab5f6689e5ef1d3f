// Package load is bindrace's load generator, for both protocols the harness measures: HTTP/1.1
// (Config.Requests, pipelined) and WebSocket echoes (Protocol WebSocket), through one entry,
// Run. The engine behind it is harness/internal/engine (epoll workers over non-blocking
// sockets, one per protocol's framing); RunWrk drives the same windows with wrk instead, to
// show that a headline is not the built-in client's artefact.
package load

import (
	"context"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/bindrace/bindrace/harness/internal/engine"
)

type (
	// Config is what to drive: protocol, target, what is sent, and the shape of the load.
	Config = engine.Config
	// Hooks are called at the edges of the measured window and with progress.
	Hooks = engine.Hooks
	// Progress is a snapshot of a running load.
	Progress = engine.Progress
	// Result is what a load measured.
	Result = engine.Result
	// Latency summarises a histogram in milliseconds.
	Latency = engine.Latency
	// ClientStats is how the load arrived, as the client saw it (HTTP loads).
	ClientStats = engine.ClientStats
	// BuildFunc renders one request per call (Config.Build: requests that differ every time).
	BuildFunc = engine.BuildFunc
	// Protocol is what a load speaks (Config.Protocol).
	Protocol = engine.Protocol
	// Arrival is how an open loop spaces its intended send times (Config.Arrival).
	Arrival = engine.Arrival
	// OpenLoop is what an open loop says about itself (Result.Open).
	OpenLoop = engine.OpenLoop
)

// Config.Protocol: what a load speaks.
const (
	HTTP      = engine.HTTP
	WebSocket = engine.WebSocket
)

// Config.Arrival: how an open loop (Config.Rate > 0) spaces its intended send times.
const (
	Uniform = engine.Uniform
	Poisson = engine.Poisson
)

// UnitMessages is Result.Unit for WebSocket loads: RPS counts echoed messages per second.
const UnitMessages = engine.UnitMessages

// ErrIncomplete marks a Result that does not cover what was asked (cancelled, or Count mode
// short of answers); the Result still holds what was measured.
var ErrIncomplete = engine.ErrIncomplete

// Run drives cfg's load and returns what was measured (see engine.Run): warm-up, then the
// measured window with h's hooks at its edges; or in Count mode exactly Count requests.
func Run(ctx context.Context, cfg Config, h Hooks) (*Result, error) { return engine.Run(ctx, cfg, h) }

// NewHistogram is an empty latency histogram (µs), of the geometry every Result's has.
func NewHistogram() *hdrhistogram.Histogram { return engine.NewHistogram() }

// Summarize reads a latency histogram's percentiles in milliseconds.
func Summarize(h *hdrhistogram.Histogram) Latency { return engine.Summarize(h) }
