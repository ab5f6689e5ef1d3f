package targets

import "github.com/bindrace/bindrace/harness/internal/procfs"

// ownsListener reports whether a process in the server's process group holds the socket that
// listens on its port. A readiness ping proves only that something answers there: while a slow
// server is still starting, another process may have taken the port. When /proc cannot tell
// (not Linux, hidden pids) it gives the benefit of the doubt.
func (s *Server) ownsListener() bool {
	inodes, err := procfs.ListeningInodes(s.Port)
	if err != nil || len(inodes) == 0 {
		return true
	}
	found, err := procfs.GroupHoldsSocket(s.Pid, inodes)
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
