package procfs

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// LocalPorts is how many ephemeral ports the kernel hands out (net.ipv4.ip_local_port_range):
// the most connections one client address can hold to one server address. ok is false where
// the file cannot be read.
func LocalPorts() (n int, ok bool) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0, false
	}
	n, err = ParsePortRange(string(b))
	return n, err == nil
}

// ParsePortRange reads ip_local_port_range's "low high" into the number of ports.
func ParsePortRange(s string) (int, error) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return 0, fmt.Errorf("port range %q: want two numbers", s)
	}
	lo, err1 := strconv.Atoi(f[0])
	hi, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || lo < 1 || hi < lo {
		return 0, fmt.Errorf("port range %q: want low <= high", s)
	}
	return hi - lo + 1, nil
}
