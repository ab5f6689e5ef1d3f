package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"
	"unicode/utf8"

	"github.com/bindrace/bindrace/harness/internal/strictjson"
)

// configJSON is a Config's JSON form: the whole load, as `bindrace load --config` reads it and
// as a harness hands it to the generators it starts on other hosts. Durations are Go's
// ("2s", "500ms"); an absent field takes Config's default.
type configJSON struct {
	Protocol     string   `json:"protocol,omitempty"` // "http" (default) or "websocket"
	Addr         string   `json:"addr"`               // host:port to dial
	Requests     []string `json:"requests,omitempty"` // HTTP: the request bytes, sent round-robin
	Host         string   `json:"host,omitempty"`     // WebSocket: Host header
	Path         string   `json:"path,omitempty"`     // WebSocket: upgrade path
	Size         int      `json:"size,omitempty"`     // WebSocket: payload bytes per message
	Connections  int      `json:"connections,omitempty"`
	Pipelining   int      `json:"pipelining,omitempty"`
	Workers      int      `json:"workers,omitempty"` // absent: the generator's CPUs
	Warmup       duration `json:"warmup,omitempty"`
	Duration     duration `json:"duration,omitempty"`
	Count        int64    `json:"count,omitempty"`
	Timeout      duration `json:"timeout,omitempty"`
	Rate         float64  `json:"rate,omitempty"`    // > 0: an open loop, requests per second in all
	Arrival      string   `json:"arrival,omitempty"` // "uniform" (default) or "poisson"
	LagTolerance duration `json:"lag_tolerance,omitempty"`
}

var protocols = map[Protocol]string{HTTP: "http", WebSocket: "websocket"}

var arrivals = map[Arrival]string{Uniform: "uniform", Poisson: "poisson"}

// EncodeConfig is c's JSON form. A Config whose requests Build renders has none: the function
// lives in this process.
func EncodeConfig(c Config) ([]byte, error) {
	if c.Build != nil {
		return nil, errors.New("load: a Config whose requests are built by a function has no JSON form")
	}
	j := configJSON{Protocol: protocols[c.Protocol], Addr: c.Addr, Host: c.Host, Path: c.Path, Size: c.Size,
		Connections: c.Connections, Pipelining: c.Pipelining, Workers: c.Workers,
		Warmup: duration(c.Warmup), Duration: duration(c.Duration), Count: c.Count, Timeout: duration(c.Timeout),
		Rate: c.Rate}
	if c.Rate > 0 { // what only an open loop reads: a closed loop's config carries none of it
		j.Arrival, j.LagTolerance = arrivals[c.Arrival], duration(c.LagTolerance)
	}
	for i, r := range c.Requests {
		if !utf8.Valid(r) {
			return nil, fmt.Errorf("load: request %d is not UTF-8 text, which JSON cannot carry unchanged", i+1)
		}
		j.Requests = append(j.Requests, string(r))
	}
	return json.Marshal(j)
}

// DecodeConfig reads a Config's JSON form: one object (strictjson). An unknown field,
// protocol or arrival, a negative duration or count, a rate that is not a positive number, a
// request that is not HTTP, is an error naming the field; the bounds are Config.Normalized's.
func DecodeConfig(r io.Reader) (Config, error) {
	var j configJSON
	if err := strictjson.Read(r, &j); err != nil {
		return Config{}, fmt.Errorf("load config: %w", err)
	}
	c := Config{Addr: j.Addr, Host: j.Host, Path: j.Path, Size: j.Size, Connections: j.Connections,
		Pipelining: j.Pipelining, Workers: j.Workers, Warmup: time.Duration(j.Warmup), Duration: time.Duration(j.Duration),
		Count: j.Count, Timeout: time.Duration(j.Timeout), Rate: j.Rate, LagTolerance: time.Duration(j.LagTolerance)}
	var ok bool
	if c.Protocol, ok = lookUp(protocols, j.Protocol, HTTP); !ok {
		return Config{}, fmt.Errorf("load config: protocol %q: want http or websocket", j.Protocol)
	}
	if c.Arrival, ok = lookUp(arrivals, j.Arrival, Uniform); !ok {
		return Config{}, fmt.Errorf("load config: arrival %q: want uniform or poisson", j.Arrival)
	}
	if err := checkRequests(c.Protocol, j.Requests); err != nil {
		return Config{}, fmt.Errorf("load config: %w", err)
	}
	for _, r := range j.Requests {
		c.Requests = append(c.Requests, []byte(r))
	}
	switch {
	case c.Warmup < 0 || c.Duration < 0 || c.Timeout < 0 || c.LagTolerance < 0:
		return Config{}, errors.New("load config: a duration (warmup, duration, timeout, lag_tolerance) is negative")
	case c.Rate < 0 || math.IsNaN(c.Rate) || math.IsInf(c.Rate, 0):
		return Config{}, fmt.Errorf("load config: rate %v: want a positive number of requests per second", c.Rate)
	case c.Rate == 0 && (j.Arrival != "" || c.LagTolerance != 0):
		return Config{}, errors.New("load config: arrival and lag_tolerance are for an open loop: give rate too")
	case c.Count < 0 || c.Connections < 0 || c.Pipelining < 0 || c.Workers < 0 || c.Size < 0:
		return Config{}, errors.New("load config: a count (count, connections, pipelining, workers, size) is negative")
	}
	return c, nil
}

// checkRequests checks a config's requests: HTTP ones each one whole request (checkRequest);
// a WebSocket load sends echoes of its own, never requests.
func checkRequests(p Protocol, reqs []string) error {
	if p == WebSocket && len(reqs) > 0 {
		return errors.New("requests: a websocket load sends its own upgrade and echoes; give host and path instead")
	}
	for i, r := range reqs {
		if err := checkRequest([]byte(r)); err != nil {
			return fmt.Errorf("requests[%d]: %w", i, err)
		}
	}
	return nil
}

// lookUp finds name among m's values ("" is def).
func lookUp[K comparable](m map[K]string, name string, def K) (K, bool) {
	if name == "" {
		return def, true
	}
	for k, v := range m {
		if v == name {
			return k, true
		}
	}
	return def, false
}

// duration is a time.Duration written as Go writes it ("1.5s").
type duration time.Duration

func (d duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

func (d *duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration is a string such as \"2s\" or \"500ms\", not %s", bytes.TrimSpace(b))
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("bad duration %q (e.g. \"2s\", \"500ms\")", s)
	}
	*d = duration(v)
	return nil
}
