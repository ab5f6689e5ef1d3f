package load

import "github.com/bindrace/bindrace/harness/scenario"

// ForScenario is the Config that drives sc against addr: its request, pipelined, over HTTP; or,
// for a WebSocket scenario, echoes of messages the size of its body over a socket upgraded at
// its path. The shape of the load (connections, pipelining, timing) is the caller's to set.
func ForScenario(sc scenario.Scenario, addr string) Config {
	if sc.WebSocket() {
		return Config{Protocol: WebSocket, Addr: addr, Host: addr, Path: sc.Path, Size: len(sc.Body)}
	}
	return Config{Addr: addr, Requests: [][]byte{sc.Request(addr)}}
}
