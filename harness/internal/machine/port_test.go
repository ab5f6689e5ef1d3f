package machine

import (
	"net"
	"strconv"
	"testing"
)

// The port given is free: it can be bound at once, on the host asked for.
func TestFreePort(t *testing.T) {
	for _, host := range []string{"", "127.0.0.1"} {
		port, err := FreePort(host)
		if err != nil || port <= 0 {
			t.Fatalf("FreePort(%q) = %d, %v", host, port, err)
		}
		ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			t.Fatalf("FreePort(%q) = %d, which cannot be bound: %v", host, port, err)
		}
		ln.Close()
	}
}
