package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The helper: a copy of this binary started by Wrap. It runs before main
// (and before a test binary's flags are parsed), confines its thread and
// execs the command, never returning.
func init() {
	raw, ok := os.LookupEnv(env)
	if !ok {
		return
	}
	err := helper(raw)
	fmt.Fprintf(os.Stderr, "podcode sandbox: %v; the command was not run\n", err)
	os.Exit(ExitRefused)
}

// helper applies the request in raw and execs its program; it returns
// only on failure.
func helper(raw string) error {
	var req request
	if err := json.Unmarshal([]byte(raw), &req); err != nil {
		return fmt.Errorf("a malformed request: %w", err)
	}
	if req.PIDNS {
		if err := mountProc(); err != nil {
			return err
		}
	}
	if req.Probe {
		os.Exit(0)
	}
	abi := landlockABI()
	if abi < 1 {
		return errors.New("this kernel has no Landlock")
	}
	rs, err := newRuleset(abi, req.Network)
	if err != nil {
		return err
	}
	defer unix.Close(rs.fd)
	if err := rs.allow(req); err != nil {
		return err
	}
	var envv []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, env+"=") {
			envv = append(envv, kv)
		}
	}
	// Landlock and no_new_privs apply to the calling thread; exec from the
	// same thread makes them the whole new program's. The thread is never
	// unlocked: if exec fails, the process exits.
	runtime.LockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if _, _, e := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(rs.fd), 0, 0); e != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", e)
	}
	if err := dropCapabilities(); err != nil {
		return err
	}
	// Only stdin, stdout and stderr go on: a descriptor the server
	// inherited without close-on-exec would be read past Landlock, which
	// checks a file when it is opened.
	if err := unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC); err != nil {
		return fmt.Errorf("close_range: %w", err)
	}
	return fmt.Errorf("exec %s: %w", req.Path, syscall.Exec(req.Path, os.Args, envv))
}

// mountProc makes the helper's mount namespace private and mounts there
// a /proc of its PID namespace: the command sees its own processes only.
// Both namespaces are the helper's own (pidNS), so nothing outside sees
// the mount.
func mountProc() error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the mounts private: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting /proc: %w", err)
	}
	return nil
}

// dropCapabilities empties the calling thread's capability sets, the
// bounding set included when the thread may change it: a server run by
// root (or given capabilities) would otherwise hand them to the command,
// and Landlock does not confine what they allow (raw sockets on the
// host's network, loading kernel modules, rebooting). With no_new_privs,
// exec gives none back, to root neither.
func dropCapabilities() error {
	for c := 0; ; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if err == unix.EINVAL {
			break // past the last capability
		}
		if err != nil && err != unix.EPERM { // EPERM: no CAP_SETPCAP, so nothing to gain from the set
			return fmt.Errorf("dropping capability %d: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clearing the ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var none [2]unix.CapUserData
	if err := unix.Capset(&hdr, &none[0]); err != nil {
		return fmt.Errorf("dropping the capabilities: %w", err)
	}
	return nil
}

// landlockABI is the kernel's Landlock ABI version, 0 without Landlock.
func landlockABI() int {
	v, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if e != 0 {
		return 0
	}
	return int(v)
}

// Access rights (include/uapi/linux/landlock.h).
const (
	accessFileRead = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE
	accessDirRead  = accessFileRead | unix.LANDLOCK_ACCESS_FS_READ_DIR
	// The rights that may be granted on a file rather than a directory.
	accessFile = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	accessDevice = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE
)

// handledFS is every file system right the ABI knows: all of them are
// denied unless a rule grants them.
func handledFS(abi int) uint64 {
	m := uint64(unix.LANDLOCK_ACCESS_FS_MAKE_SYM<<1 - 1) // ABI 1: execute .. make_sym
	if abi >= 2 {
		m |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		m |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		m |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	if abi >= 9 {
		m |= unix.LANDLOCK_ACCESS_FS_RESOLVE_UNIX
	}
	return m
}

// rulesetAttr is struct landlock_ruleset_attr up to ABI 6 (the kernel
// reads the size it is given).
type rulesetAttr struct {
	handledFS, handledNet, scoped uint64
}

// pathBeneathAttr is struct landlock_path_beneath_attr (packed: the
// kernel reads its first 12 bytes).
type pathBeneathAttr struct {
	allowed  uint64
	parentFD int32
	_        int32
}

type ruleset struct {
	fd      int
	handled uint64 // file system rights handled
}

// newRuleset creates a ruleset that handles every right abi knows: the
// file system, TCP (and UDP from ABI 10) unless network, and, from ABI 6,
// signals and abstract unix sockets leaving the sandbox.
func newRuleset(abi int, network bool) (*ruleset, error) {
	attr := rulesetAttr{handledFS: handledFS(abi)}
	size := unsafe.Sizeof(attr.handledFS)
	if abi >= 4 {
		size += unsafe.Sizeof(attr.handledNet)
		if !network {
			attr.handledNet = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
			if abi >= 10 {
				attr.handledNet |= unix.LANDLOCK_ACCESS_NET_BIND_UDP | unix.LANDLOCK_ACCESS_NET_CONNECT_SEND_UDP
			}
		}
	}
	if abi >= 6 {
		size += unsafe.Sizeof(attr.scoped)
		attr.scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
	}
	fd, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if e != 0 {
		return nil, fmt.Errorf("landlock_create_ruleset: %w", e)
	}
	return &ruleset{fd: int(fd), handled: attr.handledFS}, nil
}

// systemDirs are read and executed by every confined command; a missing
// one is skipped.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/proc"}

// devices may be read and written (random ones only read).
var devices = map[string]uint64{
	"/dev/null": accessDevice, "/dev/zero": accessDevice, "/dev/full": accessDevice,
	"/dev/random": unix.LANDLOCK_ACCESS_FS_READ_FILE, "/dev/urandom": unix.LANDLOCK_ACCESS_FS_READ_FILE,
}

// etcSecrets are the entries of /etc a confined command may not read,
// relative to /etc; a directory listed in etcDescend is opened entry by
// entry so that its secrets can be left out. Landlock grants, it cannot
// subtract: /etc is granted entry by entry.
var (
	etcSecrets = map[string]bool{
		"shadow": true, "shadow-": true, "gshadow": true, "gshadow-": true,
		"sudoers": true, "sudoers.d": true, "security/opasswd": true,
		"krb5.keytab": true, "credstore": true, "credstore.encrypted": true,
		"ipsec.secrets": true, "ipsec.d": true, "wireguard": true, "openvpn": true, "ppp": true,
		"NetworkManager": true, "wpa_supplicant": true, "ssl/private": true, "pki": true,
		"docker": true, "containerd": true, "libvirt": true, "podcode": true,
	}
	etcDescend = map[string]bool{"ssh": true, "ssl": true, "security": true}
)

// etcSecret reports whether rel, relative to /etc, is left out.
func etcSecret(rel string) bool {
	if etcSecrets[rel] {
		return true
	}
	// SSH host keys: ssh/ssh_host_*_key (the .pub files are public).
	base := filepath.Base(rel)
	return strings.HasPrefix(rel, "ssh/") && strings.HasPrefix(base, "ssh_host_") && strings.HasSuffix(base, "_key")
}

// allow adds req's rules: its directories read-write, the system's
// read-only.
func (rs *ruleset) allow(req request) error {
	for _, d := range append([]string{req.Tmp}, req.Writable...) {
		if err := rs.add(d, rs.handled, false); err != nil {
			return err
		}
	}
	for _, d := range systemDirs {
		if err := rs.add(d, accessDirRead, true); err != nil {
			return err
		}
	}
	for d, access := range devices {
		if err := rs.add(d, access, true); err != nil {
			return err
		}
	}
	return rs.addEtc("/etc", "")
}

// addEtc grants the entries of dir (rel below /etc) that are not secrets.
func (rs *ruleset) addEtc(dir, rel string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // no /etc, or unreadable: nothing to grant
	}
	for _, e := range entries {
		r := filepath.Join(rel, e.Name())
		switch {
		case etcSecret(r):
		case etcDescend[r] && isDir(filepath.Join(dir, e.Name())):
			if err := rs.addEtc(filepath.Join(dir, e.Name()), r); err != nil {
				return err
			}
		default:
			if err := rs.add(filepath.Join(dir, e.Name()), accessDirRead, true); err != nil {
				return err
			}
		}
	}
	return nil
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// add grants access beneath path (symbolic links followed), narrowed to
// the rights a file can have when path is not a directory, and to what the
// ruleset handles. A missing path is an error unless optional.
func (rs *ruleset) add(path string, access uint64, optional bool) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		if optional {
			return nil
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= accessFile
	}
	attr := pathBeneathAttr{allowed: access & rs.handled, parentFD: int32(fd)}
	if attr.allowed == 0 {
		return nil
	}
	if _, _, e := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rs.fd), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0); e != 0 {
		return fmt.Errorf("landlock_add_rule %s: %w", path, e)
	}
	return nil
}
