// Package remote runs the harness's servers and load generators on other hosts over OpenSSH:
// host specs, commands and copies with the system ssh and rsync, a per-session directory on each
// host, host facts, long-running processes in their own process groups with their CPU and
// memory use, a common start instant for several load generators, and a Session that tears
// down everything it started. It takes options structs and returns values; it has no flags.
package remote

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// Host is one host as the user named it: [user@]host[:port]. An empty User or a zero Port
// leaves the choice to the ssh config (and ssh's defaults: the local user, port 22).
type Host struct {
	User string
	Name string // host name, ssh config alias, IPv4 address or IPv6 address (without brackets)
	Port int
}

// ParseHost parses "[user@]host[:port]"; an IPv6 address with a port is written "[addr]:port".
func ParseHost(spec string) (Host, error) {
	bad := func(why string) (Host, error) {
		return Host{}, fmt.Errorf("host %q: %s (want [user@]host[:port])", spec, why)
	}
	if spec == "" {
		return bad("empty")
	}
	if strings.IndexFunc(spec, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
		return bad("contains a space or control character")
	}
	var h Host
	rest := spec
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		h.User, rest = rest[:at], rest[at+1:]
		if err := checkUser(h.User); err != "" {
			return bad(err)
		}
	}
	var port string
	switch {
	case strings.HasPrefix(rest, "["):
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return bad("unclosed [ of an IPv6 address")
		}
		h.Name = rest[1:end]
		if ip := net.ParseIP(h.Name); ip == nil || ip.To4() != nil {
			return bad("[" + h.Name + "] is not an IPv6 address")
		}
		after := rest[end+1:]
		if after != "" {
			p, ok := strings.CutPrefix(after, ":")
			if !ok {
				return bad("unexpected " + strconv.Quote(after) + " after ]")
			}
			port = p
			if port == "" {
				return bad("empty port")
			}
		}
	case strings.Count(rest, ":") > 1: // a bare IPv6 address: no port possible
		if net.ParseIP(rest) == nil {
			return bad("too many colons (an IPv6 address with a port is written [addr]:port)")
		}
		h.Name = rest
	default:
		name, p, hasPort := strings.Cut(rest, ":")
		h.Name = name
		if hasPort {
			if p == "" {
				return bad("empty port")
			}
			port = p
		}
		if err := checkHostName(h.Name); err != "" {
			return bad(err)
		}
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return bad("port " + strconv.Quote(port) + " is not a number from 1 to 65535")
		}
		h.Port = n
	}
	return h, nil
}

// ParseHosts parses a comma-separated list of host specs, as --client-hosts takes them.
// A host named twice is an error: two load generators would share one host unknowingly.
func ParseHosts(list string) ([]Host, error) {
	if strings.TrimSpace(list) == "" {
		return nil, errors.New("host list is empty")
	}
	var hosts []Host
	seen := map[string]bool{}
	for _, spec := range strings.Split(list, ",") {
		h, err := ParseHost(strings.TrimSpace(spec))
		if err != nil {
			return nil, err
		}
		if seen[h.String()] {
			return nil, fmt.Errorf("host %s is listed twice", h)
		}
		seen[h.String()] = true
		hosts = append(hosts, h)
	}
	return hosts, nil
}

func checkUser(u string) string {
	if u == "" {
		return "empty user before @"
	}
	if u[0] == '-' {
		return "user starts with '-'"
	}
	for _, r := range u {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-", r)) {
			return "user contains " + strconv.QuoteRune(r)
		}
	}
	return ""
}

func checkHostName(name string) string {
	if name == "" {
		return "empty host name"
	}
	if name[0] == '-' {
		return "host name starts with '-'" // ssh would read it as an option
	}
	if len(name) > 253 {
		return "host name longer than 253 characters"
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_') {
			return "host name contains " + strconv.QuoteRune(r)
		}
	}
	return ""
}

// String formats h as a spec ParseHost reads back.
func (h Host) String() string {
	s := h.Name
	if strings.Contains(s, ":") && h.Port != 0 {
		s = "[" + s + "]"
	}
	if h.User != "" {
		s = h.User + "@" + s
	}
	if h.Port != 0 {
		s += ":" + strconv.Itoa(h.Port)
	}
	return s
}

// rsyncTarget is the host part of an rsync operand: user@host, with an IPv6 address in
// brackets.
func (h Host) rsyncTarget() string {
	s := h.Name
	if strings.Contains(s, ":") {
		s = "[" + s + "]"
	}
	if h.User != "" {
		s = h.User + "@" + s
	}
	return s
}
