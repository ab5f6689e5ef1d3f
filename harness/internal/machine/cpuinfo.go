package machine

import (
	"os"
	"strings"
)

// CPUInfo is what /proc/cpuinfo says of the first processor (every processor of a machine
// bindrace runs on is the same model), and how many there are.
type CPUInfo struct {
	Vendor string   // vendor_id: AuthenticAMD, GenuineIntel
	Model  string   // model name
	Flags  []string // the features the kernel lets programs use
	Count  int      // processors listed
}

// ReadCPUInfo reads /proc/cpuinfo.
func ReadCPUInfo() (CPUInfo, error) {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return CPUInfo{}, err
	}
	return parseCPUInfo(string(b)), nil
}

func parseCPUInfo(text string) CPUInfo {
	var c CPUInfo
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k = strings.TrimSpace(k); {
		case k == "processor":
			c.Count++
		case c.Count > 1: // the first processor's fields only
		case k == "vendor_id":
			c.Vendor = v
		case k == "model name":
			c.Model = v
		case k == "flags":
			c.Flags = strings.Fields(v)
		}
	}
	return c
}
