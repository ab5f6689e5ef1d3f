package loopback

import (
	"net"
	"testing"
	"time"
)

// Listen's listener accepts on the port it returns; Unused's address refuses connections.
func TestListenAndUnused(t *testing.T) {
	ln, port := Listen(t)
	if port != ln.Addr().(*net.TCPAddr).Port || port <= 0 {
		t.Fatalf("port %d for listener %s", port, ln.Addr())
	}
	c, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second)
	if err != nil {
		t.Fatalf("dial the listener: %v", err)
	}
	c.Close()

	addr := Unused(t)
	if !addr.IP.IsLoopback() || addr.Port <= 0 {
		t.Fatalf("Unused = %s", addr)
	}
	if c, err := net.DialTimeout("tcp", addr.String(), time.Second); err == nil {
		c.Close()
		t.Fatalf("%s accepted a connection", addr)
	}
}
