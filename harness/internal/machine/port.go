package machine

import "net"

// FreePort asks the kernel for a TCP port nobody listens on, on host ("" for every address).
// Another process may take it before the caller binds it, so a caller checks and picks again.
func FreePort(host string) (int, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
