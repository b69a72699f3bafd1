// Package sandbox runs a command confined by the kernel, so that arbitrary
// code (bash's commands) reaches only its workspace.
//
// How: Wrap turns an exec.Cmd, not yet started, into a start of this same
// binary (/proc/self/exe) with the policy in an environment variable. The
// copy recognises the variable before main runs (an init function of this
// package, so a test binary is a helper too), restricts its own thread
// with Landlock, and execs the command from that thread: the command and
// everything it starts inherit the restriction, and the server itself is
// never restricted (Landlock cannot be lifted once applied).
//
// What a confined command may do:
//   - read, write, create, delete and execute under Policy.Writable and
//     Policy.Tmp (its private temporary directory, its TMPDIR and HOME);
//   - read and execute the system's directories (/usr, /bin, /sbin, /lib*,
//     /opt), /proc, and /etc except the files that hold secrets (shadow
//     files, sudoers, SSH host keys, TLS private keys, stored network
//     credentials: see etcSecrets);
//   - read and write /dev/null, /dev/zero, /dev/full; read /dev/random and
//     /dev/urandom;
//   - with Policy.Network, use the network.
//
// What it may not: any other file (another workspace, the database, the
// user's home and config, /tmp, /run, /sys, /dev/tty); rename or link a
// file out of its directories; mount; ptrace, signal or read the memory,
// environment, open files or working directory of a process outside its
// sandbox (the server, another workspace's commands); connect to abstract
// unix sockets outside its sandbox; and, without Policy.Network, open TCP
// connections or listen (Landlock ABI 4 and later) and any other traffic
// (UDP, DNS, ICMP) where a network namespace can be made (probed once:
// Support.NetNS). Its environment is a short allow-list (PATH, the locale,
// TERM, TZ), so the server's secrets (API keys, tenants' tokens) are not
// in it. Only its stdin, stdout and stderr reach it: every other
// descriptor, one the server inherited without close-on-exec included, is
// closed at the exec (Landlock checks a file when it is opened, not when
// an open descriptor is read).
//
// Privileges: it holds no capability, even when the server runs as root
// (all sets are emptied, the bounding set too where the helper may), and
// setuid programs (sudo) gain nothing: no_new_privs is set.
//
// Processes: where a PID namespace can be made (Support.PIDNS, probed
// once), the command is the first process of one, with a /proc of its own:
// it sees only its own processes, and when it exits the kernel kills
// every process it left, whatever group or session that process moved to.
//
// What it does not stop: without a PID namespace, reading other
// processes' command lines and status in /proc (as any local user can),
// and a process that left the command's process group (setsid) outliving
// it; pathname unix sockets outside the sandbox below Landlock ABI 9 (the
// kernel checks them only from ABI 9); UDP and other non-TCP traffic when
// no network namespace can be made (Landlock handles UDP only from ABI
// 10); using CPU, memory and disk while it runs (no cgroup limits: bash's
// timeout bounds its time, and, with a PID namespace, that of everything
// it started); kernel exploits.
//
// Failure is closed: Wrap refuses (and the command does not run) when the
// kernel has no Landlock, or when the network must be off and neither a
// network namespace nor Landlock ABI 4 is available; the helper refuses to
// exec the command when it cannot apply every rule.
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Policy is what a confined command may reach besides the system's
// read-only directories.
type Policy struct {
	Writable []string // directories it may read, write and execute; absolute, existing
	// Tmp is its private temporary directory (TMPDIR and HOME point to
	// it), created with mode 0700 when missing. Required: /tmp is shared
	// by everyone and is not reachable.
	Tmp     string
	Network bool // allow the network
}

// Support is what this machine can enforce.
type Support struct {
	ABI   int  // the kernel's Landlock ABI version; 0 without Landlock
	NetNS bool // a new network namespace (with a user namespace) can be made
	// PIDNS: a new PID namespace, with a mount namespace and a /proc of its
	// own (in a user namespace), can be made.
	PIDNS bool
}

// String describes s for a log line.
func (s Support) String() string {
	if s.ABI == 0 {
		return "no Landlock: sandboxed commands are refused"
	}
	net := "TCP only (Landlock)"
	switch {
	case s.NetNS:
		net = "network namespace"
	case s.ABI < 4:
		net = "none: commands without the network are refused"
	}
	procs := "PID namespace"
	if !s.PIDNS {
		procs = "none: a process that leaves its group outlives its command"
	}
	return fmt.Sprintf("Landlock ABI %d, network off by %s, processes kept in by %s, signals kept in by %s", s.ABI, net, procs, s.signals())
}

// signals says what keeps a command from signalling the processes outside
// its sandbox (the server, other tenants' commands, all of the same user):
// Landlock scopes signals and abstract unix sockets from ABI 6; a PID
// namespace hides the other processes.
func (s Support) signals() string {
	switch {
	case s.ABI >= 6:
		return "Landlock"
	case s.PIDNS:
		return "PID namespace"
	}
	return "none: a command may signal (kill) the server and other commands"
}

// SignalsScoped reports whether a command cannot signal the processes
// outside its sandbox.
func (s Support) SignalsScoped() bool { return s.ABI >= 6 || s.PIDNS }

// check says why p cannot be enforced with s, or nil.
func (s Support) check(p Policy) error {
	if s.ABI < 1 {
		return errors.New("sandbox: this kernel has no Landlock (it is not built in, or not in the lsm= boot parameter), so the command cannot be confined and was not run")
	}
	if !p.Network && !s.NetNS && s.ABI < 4 {
		return fmt.Errorf("sandbox: the network cannot be cut off here (Landlock ABI %d restricts TCP only from ABI 4, and no network namespace can be made), so the command was not run", s.ABI)
	}
	return nil
}

// ExitRefused is the exit status of a command whose confinement failed in
// the helper (the command did not run); the helper says why on stderr.
const ExitRefused = 126

// env is the name of the variable that carries the helper's request.
const env = "PODCODE_SANDBOX_REQUEST"

// request is what the helper reads from env.
type request struct {
	Probe    bool     `json:"probe,omitempty"` // exit at once: a probe of the namespaces
	Path     string   `json:"path"`            // the program to exec, absolute
	Writable []string `json:"writable"`
	Tmp      string   `json:"tmp"`
	Network  bool     `json:"network,omitempty"`
	PIDNS    bool     `json:"pidns,omitempty"` // started in new PID and mount namespaces: mount /proc first
}

// keptEnv are the variables a confined command keeps from the caller's
// environment; everything else (keys, tokens) stays out.
var keptEnv = []string{"PATH", "LANG", "LANGUAGE", "TERM", "TZ"}

// confinedEnv is the environment of a confined command: base (the
// command's, or the process's when nil) reduced to keptEnv and the locale,
// HOME and TMPDIR set to tmp.
func confinedEnv(base []string, tmp string) []string {
	if base == nil {
		base = os.Environ()
	}
	var out []string
	hasPath := false
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if k == "PATH" {
			hasPath = true
		}
		for _, keep := range keptEnv {
			if k == keep || strings.HasPrefix(k, "LC_") {
				out = append(out, kv)
				break
			}
		}
	}
	if !hasPath {
		out = append(out, "PATH=/usr/local/bin:/usr/bin:/bin")
	}
	return append(out, "HOME="+tmp, "TMPDIR="+tmp)
}

// validate checks p's paths before anything starts.
func validate(p Policy) error {
	if p.Tmp == "" {
		return errors.New("sandbox: no private temporary directory")
	}
	if len(p.Writable) == 0 {
		return errors.New("sandbox: no writable directory")
	}
	for _, d := range append([]string{p.Tmp}, p.Writable...) {
		if !filepath.IsAbs(d) {
			return fmt.Errorf("sandbox: %q is not an absolute path", d)
		}
	}
	return nil
}

// Wrap makes cmd, built but not started, run confined by p. It fails,
// leaving nothing to run, when p cannot be enforced on this machine; call
// it after anything else that sets cmd.SysProcAttr (it adds to it).
// cmd.ExtraFiles do not reach the command: only stdin, stdout and stderr
// do.
func Wrap(cmd *exec.Cmd, p Policy) error {
	if cmd.Process != nil {
		return errors.New("sandbox: the command has already started")
	}
	if cmd.Err != nil {
		return cmd.Err
	}
	if !filepath.IsAbs(cmd.Path) {
		return fmt.Errorf("sandbox: %q is not an absolute path", cmd.Path)
	}
	if err := validate(p); err != nil {
		return err
	}
	return wrap(cmd, p)
}
