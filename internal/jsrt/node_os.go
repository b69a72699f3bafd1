package jsrt

import (
	"bufio"
	"bytes"
	"net"
	"os"
	"os/user"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/dop251/goja"
	"golang.org/x/sys/unix"
)

// The Go half of node:os: uname, sysinfo, the user's passwd entry and the
// network interfaces, as Node reports them.

// osStatic is what node:os reports that does not change while the server
// runs: read once per process, not per plugin.
var osStatic = sync.OnceValue(func() map[string]any {
	var u unix.Utsname
	_ = unix.Uname(&u)
	str := func(b []byte) string { return string(bytes.TrimRight(b, "\x00")) }
	home, _ := os.UserHomeDir()
	return map[string]any{"type": str(u.Sysname[:]), "release": str(u.Release[:]), "version": str(u.Version[:]),
		"machine": str(u.Machine[:]), "ncpu": runtime.NumCPU(), "cpuModel": cpuModel(), "home": home}
})

func init() {
	nodeHosts["os"] = func(r *Runtime) (*goja.Object, error) {
		h := r.vm.NewObject()
		for k, v := range osStatic() {
			h.Set(k, v)
		}
		h.Set("hostname", func() string { n, _ := os.Hostname(); return n })
		h.Set("uptime", func() int64 {
			var si unix.Sysinfo_t
			if unix.Sysinfo(&si) != nil {
				return 0
			}
			return int64(si.Uptime)
		})
		h.Set("loadavg", func() []float64 {
			var si unix.Sysinfo_t
			if unix.Sysinfo(&si) != nil {
				return []float64{0, 0, 0}
			}
			const scale = 1 << 16 // SI_LOAD_SHIFT
			return []float64{float64(si.Loads[0]) / scale, float64(si.Loads[1]) / scale, float64(si.Loads[2]) / scale}
		})
		mem := func(free bool) uint64 {
			var si unix.Sysinfo_t
			if unix.Sysinfo(&si) != nil {
				return 0
			}
			if free {
				return availableMemory(uint64(si.Freeram) * uint64(si.Unit))
			}
			return uint64(si.Totalram) * uint64(si.Unit)
		}
		h.Set("totalmem", func() uint64 { return mem(false) })
		h.Set("freemem", func() uint64 { return mem(true) })
		h.Set("user", func() map[string]any {
			out := map[string]any{"uid": os.Getuid(), "gid": os.Getgid(), "username": "", "homedir": "", "shell": nil}
			if u, err := user.LookupId(strconv.Itoa(os.Getuid())); err == nil {
				out["username"], out["homedir"] = u.Username, u.HomeDir
			}
			if sh := passwdShell(os.Getuid()); sh != "" {
				out["shell"] = sh
			}
			return out
		})
		h.Set("interfaces", networkInterfaces)
		return h, nil
	}
}

// availableMemory is MemAvailable of /proc/meminfo, which Node's freemem
// reports, else free.
func availableMemory(free uint64) uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return free
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "MemAvailable:"); ok {
			var kb uint64
			for _, c := range strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")) {
				if c < '0' || c > '9' {
					break
				}
				kb = kb*10 + uint64(c-'0')
			}
			return kb * 1024
		}
	}
	return free
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if k, v, ok := strings.Cut(s.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// passwdShell is the login shell of uid in /etc/passwd, as userInfo
// reports it.
func passwdShell(uid int) string {
	f, err := os.Open("/etc/passwd")
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Split(s.Text(), ":")
		if len(fields) >= 7 && fields[2] == strconv.Itoa(uid) {
			return fields[6]
		}
	}
	return ""
}

// networkInterfaces is os.networkInterfaces(): by name, each address
// with its netmask, family, MAC, whether internal, and CIDR.
func networkInterfaces() map[string]any {
	out := map[string]any{}
	ifaces, err := net.Interfaces()
	if err != nil {
		return out
	}
	for _, ifc := range ifaces {
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		var list []any
		for _, a := range addrs {
			ipn, ok := a.(*net.IPNet)
			if !ok {
				continue
			}
			family, mask := "IPv6", net.IP(ipn.Mask).String()
			if ip4 := ipn.IP.To4(); ip4 != nil {
				family = "IPv4"
			} else {
				mask = ipv6Mask(ipn.Mask)
			}
			ones, _ := ipn.Mask.Size()
			mac := ifc.HardwareAddr.String()
			if mac == "" {
				mac = "00:00:00:00:00:00"
			}
			e := map[string]any{"address": ipn.IP.String(), "netmask": mask, "family": family, "mac": mac,
				"internal": ifc.Flags&net.FlagLoopback != 0, "cidr": ipn.IP.String() + "/" + strconv.Itoa(ones)}
			if family == "IPv6" {
				e["scopeid"] = 0
				if ipn.IP.IsLinkLocalUnicast() {
					e["scopeid"] = ifc.Index
				}
			}
			list = append(list, e)
		}
		if len(list) > 0 {
			out[ifc.Name] = list
		}
	}
	return out
}

func ipv6Mask(m net.IPMask) string {
	ip := make(net.IP, net.IPv6len)
	copy(ip, m)
	return ip.String()
}
