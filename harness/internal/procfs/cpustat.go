package procfs

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// CPUTimes is the first ("cpu") line of /proc/stat: jiffies spent in each state by all CPUs.
type CPUTimes struct {
	Total, Idle, Steal uint64 // idle includes iowait
}

// ReadCPUTimes reads /proc/stat (or the file at path, for tests).
func ReadCPUTimes(path string) (CPUTimes, error) {
	f, err := os.Open(path)
	if err != nil {
		return CPUTimes{}, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 || fields[0] != "cpu" {
			continue
		}
		// user nice system idle iowait irq softirq steal guest guest_nice; guest time is
		// already counted in user and nice, so it is not added again.
		var v [8]uint64
		for i := 0; i < len(v) && i+1 < len(fields); i++ {
			if v[i], err = strconv.ParseUint(fields[i+1], 10, 64); err != nil {
				return CPUTimes{}, fmt.Errorf("%s: bad cpu line %q", path, sc.Text())
			}
		}
		t := CPUTimes{Idle: v[3] + v[4], Steal: v[7]}
		for _, x := range v {
			t.Total += x
		}
		return t, nil
	}
	if err := sc.Err(); err != nil {
		return CPUTimes{}, err
	}
	return CPUTimes{}, errors.New(path + ": no cpu line")
}
