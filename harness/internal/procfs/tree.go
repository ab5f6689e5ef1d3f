package procfs

import (
	"fmt"
	"os"
	"strconv"
)

// Tree returns root and every live descendant of it, root first, found through the parent
// links: PostgreSQL's children each call setsid(), so their process group does not find them.
func Tree(root int) ([]Stat, error) {
	rs, err := ReadStat(root)
	if err != nil {
		return nil, err
	}
	if rs.Zombie() {
		return nil, fmt.Errorf("pid %d has exited", root)
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	byParent := map[int][]Stat{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == root {
			continue
		}
		s, err := ReadStat(pid)
		if err != nil || s.Zombie() {
			continue // exited while we looked, or a zombie nobody reaped yet
		}
		byParent[s.PPid] = append(byParent[s.PPid], s)
	}
	tree := []Stat{rs}
	for i := 0; i < len(tree); i++ {
		tree = append(tree, byParent[tree[i].Pid]...)
	}
	return tree, nil
}

// Alive reports whether the process s was read from still runs: same pid, same start time,
// and not a zombie (a container's init may never reap what a server left behind).
func Alive(s Stat) bool {
	now, err := ReadStat(s.Pid)
	return err == nil && now.StartTime == s.StartTime && !now.Zombie()
}
