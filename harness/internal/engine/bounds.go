package engine

import "github.com/bindrace/bindrace/harness/setting"

// nominalBuilt is the request size a Config whose requests Build renders is reckoned with.
const nominalBuilt = 256

// checkBounds holds a normalized Config's resources to their bounds on this machine
// (setting.Bounds), what it keeps in flight included, before anything is dialled.
func (c Config) checkBounds() error {
	type value struct {
		name string
		v    float64
	}
	vals := []value{{"connections", float64(c.Connections)}, {"pipelining", float64(c.Pipelining)},
		{"workers", float64(c.Workers)}, {"count", float64(c.Count)}, {"timeout", c.Timeout.Seconds()}}
	if c.Protocol == WebSocket {
		vals = append(vals, value{"size", float64(c.Size)})
	}
	if c.Count == 0 {
		vals = append(vals, value{"duration", c.Duration.Seconds()}, value{"warmup", c.Warmup.Seconds()})
	}
	if c.Rate > 0 {
		vals = append(vals, value{"rate", c.Rate}, value{"lag_tolerance", c.LagTolerance.Seconds()})
	}
	for _, v := range vals {
		if err := setting.Check(v.name, v.v); err != nil {
			return err
		}
	}
	return setting.InFlight(c.Connections, c.Pipelining, c.inFlightBytes())
}

// inFlightBytes is what one request in flight holds on one connection, the batches that every
// connection shares spread over them: an HTTP batch of Pipelining requests per starting request
// (http.go), a WebSocket connection's frames and their payloads (ws.go).
func (c Config) inFlightBytes() int64 {
	if c.Protocol == WebSocket {
		return 2 * int64(headerLen(c.Size, true)+c.Size)
	}
	if c.Build != nil {
		return nominalBuilt
	}
	var longest, all int64
	for _, r := range c.Requests {
		longest, all = max(longest, int64(len(r))), all+int64(len(r))
	}
	return longest + (all+int64(c.Connections)-1)/int64(c.Connections)
}
