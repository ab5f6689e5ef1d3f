package targets

import "fmt"

// ParseUsage turns the text of a process's /proc/<pid>/stat and /proc/<pid>/status into Usage,
// as Server.Usage reads them locally. It is exported for harness/remote, which reads the same
// two files on another host over ssh.
func ParseUsage(stat, status string) (Usage, error) {
	cpu, err := parseStatCPU(stat)
	if err != nil {
		return Usage{}, fmt.Errorf("/proc stat: %w", err)
	}
	rss, peak := parseStatusRSS(status)
	if rss == 0 && peak == 0 {
		return Usage{}, fmt.Errorf("/proc status: no VmRSS or VmHWM line")
	}
	return Usage{CPUSeconds: cpu, RSSBytes: rss, PeakRSSBytes: peak}, nil
}
