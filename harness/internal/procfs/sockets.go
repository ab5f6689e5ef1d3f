package procfs

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ListeningInodes returns the inodes of the TCP sockets in LISTEN state on port, IPv4 and
// IPv6 (/proc/net/tcp and tcp6).
func ListeningInodes(port int) (map[string]bool, error) {
	inodes := map[string]bool{}
	want := fmt.Sprintf(":%04X", port)
	read := 0
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue // no IPv6 is no error
		}
		read++
		sc := bufio.NewScanner(f)
		sc.Scan() // header
		for sc.Scan() {
			// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
			f := strings.Fields(sc.Text())
			if len(f) >= 10 && f[3] == "0A" && strings.HasSuffix(f[1], want) {
				inodes[f[9]] = true
			}
		}
		f.Close()
	}
	if read == 0 {
		return nil, fmt.Errorf("no /proc/net/tcp")
	}
	return inodes, nil
}

// GroupHoldsSocket reports whether any process of process group pgid has one of the socket
// inodes open.
func GroupHoldsSocket(pgid int, inodes map[string]bool) (bool, error) {
	dirs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil || len(dirs) == 0 {
		return false, fmt.Errorf("no /proc")
	}
	for _, dir := range dirs {
		pid, _ := strconv.Atoi(filepath.Base(dir))
		s, err := ReadStat(pid)
		if err != nil || s.Pgrp != pgid {
			continue // exited, or another group's
		}
		fds, _ := os.ReadDir(filepath.Join(dir, "fd"))
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(dir, "fd", fd.Name()))
			if err == nil && strings.HasPrefix(link, "socket:[") && inodes[strings.TrimSuffix(link[len("socket:["):], "]")] {
				return true, nil
			}
		}
	}
	return false, nil
}
