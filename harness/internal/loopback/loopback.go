// Package loopback gives tests their addresses on 127.0.0.1: a listener the test owns, or an
// address nobody listens on. Tests send traffic to loopback only, so every test server and
// every refused-connection case starts here.
package loopback

import (
	"net"
	"sync/atomic"
	"testing"
)

// Listen listens on a kernel-chosen port of 127.0.0.1 and closes the listener when the test
// ends (a test may close it sooner). It returns the listener and its port.
func Listen(t testing.TB) (net.Listener, int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln, ln.Addr().(*net.TCPAddr).Port
}

// Unused returns an address of 127.0.0.1 that was free a moment ago and is not listened on:
// what a server's --port takes, or where a connection is refused. Another process may take it
// meanwhile, which on a test machine's loopback is rare enough to ignore.
func Unused(t testing.TB) *net.TCPAddr {
	t.Helper()
	ln, _ := Listen(t)
	ln.Close()
	return ln.Addr().(*net.TCPAddr)
}

// Serve is a raw TCP server on a fresh listener for the test's life: onRead gets each accepted
// connection's reads in order (chunk is valid until onRead returns) and answers on c as it
// likes. It returns the listener's address.
func Serve(t testing.TB, onRead func(c net.Conn, chunk []byte)) string {
	t.Helper()
	ln, _ := Listen(t)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 64<<10)
				for {
					n, err := c.Read(buf)
					if err != nil {
						return
					}
					onRead(c, buf[:n])
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// ServeHalfGarbage is Serve answering every other read with bytes that are not HTTP and the
// others with a valid 2-byte response: a load against it measures both valid responses and
// malformed errors.
func ServeHalfGarbage(t testing.TB) string {
	t.Helper()
	var n atomic.Int64
	return Serve(t, func(c net.Conn, _ []byte) {
		if n.Add(1)%2 == 0 {
			c.Write([]byte("garbage\r\n\r\n"))
			return
		}
		c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"))
	})
}
