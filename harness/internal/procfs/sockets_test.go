package procfs

import (
	"net"
	"os"
	"syscall"
	"testing"
)

func TestListeningSocketOwner(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	inodes, err := ListeningInodes(port)
	if err != nil || len(inodes) != 1 {
		t.Fatalf("inodes listening on %d: %v, %v", port, inodes, err)
	}
	pgid, _ := syscall.Getpgid(os.Getpid())
	if held, err := GroupHoldsSocket(pgid, inodes); err != nil || !held {
		t.Errorf("this process's group holds its listener: %v, %v", held, err)
	}
	if held, _ := GroupHoldsSocket(pgid+1<<20, inodes); held {
		t.Error("a group that does not exist holds the listener")
	}
	ln.Close()
	if inodes, _ := ListeningInodes(port); len(inodes) != 0 {
		t.Errorf("a closed listener still listens: %v", inodes)
	}
}
