package procfs

import (
	"os"
	"syscall"
	"testing"

	"github.com/bindrace/bindrace/harness/internal/loopback"
)

func TestListeningSocketOwner(t *testing.T) {
	ln, port := loopback.Listen(t)
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
