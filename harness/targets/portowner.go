package targets

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ownsListener reports whether a process in the server's process group holds the socket that
// listens on its port. A readiness ping proves only that something answers there: while a slow
// server is still starting, another process may have taken the port. When /proc cannot tell
// (not Linux, hidden pids) it gives the benefit of the doubt.
func (s *Server) ownsListener() bool {
	inodes, err := listeningInodes(s.Port)
	if err != nil || len(inodes) == 0 {
		return true
	}
	found, err := groupHoldsSocket(s.Pid, inodes)
	return err != nil || found
}

func (s *Server) exitedEarly() bool {
	select {
	case <-s.exited:
		return true
	default:
		return false
	}
}

// listeningInodes returns the inodes of the TCP sockets in LISTEN state on port (IPv4 and IPv6).
func listeningInodes(port int) (map[string]bool, error) {
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

// groupHoldsSocket reports whether any process whose process group is pgid has one of the
// socket inodes open.
func groupHoldsSocket(pgid int, inodes map[string]bool) (bool, error) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		return false, fmt.Errorf("no /proc")
	}
	for _, stat := range stats {
		b, err := os.ReadFile(stat)
		if err != nil {
			continue // the process has exited
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so cut at the last ')'.
		rest := string(b[strings.LastIndexByte(string(b), ')')+1:])
		f := strings.Fields(rest)
		if len(f) < 3 {
			continue
		}
		if pg, _ := strconv.Atoi(f[2]); pg != pgid {
			continue
		}
		dir := filepath.Join(filepath.Dir(stat), "fd")
		fds, _ := os.ReadDir(dir)
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(dir, fd.Name()))
			if err == nil && strings.HasPrefix(link, "socket:[") && inodes[strings.TrimSuffix(link[len("socket:["):], "]")] {
				return true, nil
			}
		}
	}
	return false, nil
}
