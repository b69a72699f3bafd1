package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// requireLandlock skips t on a kernel without Landlock, saying so.
func requireLandlock(t *testing.T) Support {
	t.Helper()
	s := Probe()
	if s.ABI == 0 {
		t.Skip("this kernel has no Landlock (not built in, or not in the lsm= boot parameter): the sandbox cannot be tested here")
	}
	t.Logf("sandbox: %s", s)
	return s
}

// dirs makes a workspace, its private tmp and a directory outside both
// with a secret in it.
func dirs(t *testing.T) (ws, tmp, outside string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, tmp, outside = filepath.Join(base, "ws"), filepath.Join(base, "tmp"), filepath.Join(base, "outside")
	for _, d := range []string{ws, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("the secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws, tmp, outside
}

// run runs script with bash, confined by p, in p's first writable
// directory, and returns its combined output and exit status.
func run(t *testing.T, p Policy, script string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = p.Writable[0]
	if err := Wrap(cmd, p); err != nil {
		t.Fatalf("Wrap: %v", err)
	}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("running %q: %v", script, err)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

// Inside its workspace a confined command reads, writes, creates and
// deletes; outside it, by a relative or an absolute path, it can neither
// read nor write.
func TestFiles(t *testing.T) {
	requireLandlock(t)
	ws, tmp, outside := dirs(t)
	p := Policy{Writable: []string{ws}, Tmp: tmp}
	// The shared temporary directory is not the command's.
	shared := filepath.Join(os.TempDir(), "podcode-sandbox-test-"+filepath.Base(filepath.Dir(ws)))
	out, code := run(t, p, `set -e
		echo hello > a.txt; cat a.txt; mkdir -p sub/deeper; mv a.txt sub/deeper/b.txt; rm -r sub
		echo scratch > "$TMPDIR/scratch"; cat "$TMPDIR/scratch"; ls /usr/bin/bash >/dev/null; echo done`)
	if code != 0 || out != "hello\nscratch\ndone\n" {
		t.Fatalf("inside the workspace: exit %d, output %q", code, out)
	}
	for _, script := range []string{
		"cat ../outside/secret",
		"cat " + filepath.Join(outside, "secret"),
		"ls " + outside,
		"echo pwned > " + filepath.Join(outside, "new"),
		"echo pwned >> " + filepath.Join(outside, "secret"),
		"rm " + filepath.Join(outside, "secret"),
		"ln ../outside/secret hard && cat hard",
		"mv ../outside/secret stolen",
		"ls " + os.TempDir(),
		"echo x > " + shared,
	} {
		out, code := run(t, p, script)
		if code == 0 || strings.Contains(out, "the secret") {
			t.Errorf("%q outside the workspace: exit %d, output %q", script, code, out)
		}
	}
	if data, err := os.ReadFile(filepath.Join(outside, "secret")); err != nil || string(data) != "the secret\n" {
		t.Errorf("the file outside was changed: %q %v", data, err)
	}
	for _, name := range []string{filepath.Join(outside, "new"), shared} {
		if _, err := os.Stat(name); err == nil {
			os.Remove(name)
			t.Errorf("%s was written from the sandbox", name)
		}
	}
}

// /etc is readable except the files that hold secrets.
func TestEtcSecrets(t *testing.T) {
	requireLandlock(t)
	ws, tmp, _ := dirs(t)
	p := Policy{Writable: []string{ws}, Tmp: tmp}
	if out, code := run(t, p, "cat /etc/passwd >/dev/null && echo ok"); code != 0 || out != "ok\n" {
		t.Errorf("/etc/passwd: exit %d, output %q", code, out)
	}
	if _, err := os.ReadFile("/etc/shadow"); err != nil {
		t.Logf("/etc/shadow is not readable by this user anyway (%v); checking the sandbox refuses it too", err)
	}
	if out, code := run(t, p, "cat /etc/shadow"); code == 0 {
		t.Errorf("/etc/shadow was read in the sandbox: %q", out)
	}
}

// The command's environment is an allow-list: the caller's secrets stay
// out; HOME and TMPDIR are the private directory.
func TestEnvironment(t *testing.T) {
	requireLandlock(t)
	ws, tmp, _ := dirs(t)
	t.Setenv("PODCODE_TEST_API_KEY", "sk-very-secret")
	out, code := run(t, Policy{Writable: []string{ws}, Tmp: tmp}, `env; echo "home=$HOME tmp=$TMPDIR"`)
	if code != 0 || strings.Contains(out, "sk-very-secret") || strings.Contains(out, env) {
		t.Errorf("exit %d, environment:\n%s", code, out)
	}
	if !strings.Contains(out, "home="+tmp+" tmp="+tmp) {
		t.Errorf("HOME and TMPDIR are not the private directory:\n%s", out)
	}
	if st, err := os.Stat(tmp); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("the private directory: %v %v", st, err)
	}
}

// A confined command cannot read the environment or memory of a process
// outside its sandbox (this one stands for the server), nor signal it.
func TestOtherProcesses(t *testing.T) {
	s := requireLandlock(t)
	ws, tmp, _ := dirs(t)
	t.Setenv("PODCODE_TEST_API_KEY", "sk-very-secret")
	p := Policy{Writable: []string{ws}, Tmp: tmp}
	pid := os.Getpid()
	if out, code := run(t, p, fmt.Sprintf("cat /proc/%d/environ", pid)); code == 0 || strings.Contains(out, "sk-very-secret") {
		t.Errorf("the server's environment was read: exit %d, %q", code, out)
	}
	if out, code := run(t, p, fmt.Sprintf("ls -l /proc/%d/cwd/", pid)); code == 0 {
		t.Errorf("the server's working directory was listed: %q", out)
	}
	if s.ABI < 6 {
		t.Logf("Landlock ABI %d does not scope signals (ABI 6 does): not checked", s.ABI)
		return
	}
	if out, code := run(t, p, fmt.Sprintf("kill -0 %d", pid)); code == 0 {
		t.Errorf("the server could be signalled: %q", out)
	}
}

// With the network off, a TCP connection to a loopback listener is
// refused, by the network namespace and by Landlock alone (where no
// namespace can be made); with it on, it is made.
func TestNetwork(t *testing.T) {
	real := requireLandlock(t)
	t.Cleanup(func() { probed = real })
	ws, tmp, _ := dirs(t)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
			accepted <- struct{}{}
		}
	}()
	connect := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", ln.Addr().(*net.TCPAddr).Port)
	modes := []Support{real}
	if real.NetNS && real.ABI >= 4 {
		modes = append(modes, Support{ABI: real.ABI}) // Landlock alone
	}
	for _, s := range modes {
		probed = s
		p := Policy{Writable: []string{ws}, Tmp: tmp}
		if out, code := run(t, p, connect); code == 0 || strings.Contains(out, "connected") {
			t.Errorf("network off (%s): a TCP connection was made: %q", s, out)
		}
		p.Network = true
		if out, code := run(t, p, connect); code != 0 || out != "connected\n" {
			t.Fatalf("network on (%s): exit %d, %q", s, code, out)
		}
		<-accepted // the connection reached the listener
	}
}

// With a network namespace, the network off stops UDP too (Landlock alone
// handles it only from ABI 10).
func TestNetworkUDP(t *testing.T) {
	s := requireLandlock(t)
	if !s.NetNS && s.ABI < 10 {
		t.Skipf("%s: UDP is not stopped on this machine (documented)", s)
	}
	ws, tmp, _ := dirs(t)
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	port := pc.LocalAddr().(*net.UDPAddr).Port
	run(t, Policy{Writable: []string{ws}, Tmp: tmp}, fmt.Sprintf("echo leaked > /dev/udp/127.0.0.1/%d", port))
	// A datagram sent now, after the confined command ended, must be the
	// first one the listener has.
	c, err := net.Dial("udp4", pc.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("marker"))
	c.Close()
	buf := make([]byte, 64)
	n, _, err := pc.ReadFrom(buf)
	if err != nil || string(buf[:n]) != "marker" {
		t.Errorf("the first datagram is %q (%v): the sandbox sent UDP", buf[:n], err)
	}
}

// Fail closed: without Landlock, or without a way to cut the network off,
// Wrap refuses and the command does not start; a helper that cannot apply
// a rule does not run the command.
func TestFailClosed(t *testing.T) {
	real := Probe()
	t.Cleanup(func() { probed = real })
	ws, tmp, _ := dirs(t)
	p := Policy{Writable: []string{ws}, Tmp: tmp}

	probed = Support{}
	cmd := exec.Command("bash", "-c", "touch ran")
	if err := Wrap(cmd, p); err == nil || !strings.Contains(err.Error(), "no Landlock") {
		t.Errorf("without Landlock: %v", err)
	}

	probed = Support{ABI: 3}
	if err := Wrap(exec.Command("bash", "-c", "true"), p); err == nil || !strings.Contains(err.Error(), "network cannot be cut off") {
		t.Errorf("ABI 3 without a network namespace, network off: %v", err)
	}
	p.Network = true
	if err := Wrap(exec.Command("bash", "-c", "true"), p); err != nil {
		t.Errorf("ABI 3, network on: %v", err)
	}
	p.Network = false

	probed = real
	if real.ABI == 0 {
		t.Skip("this kernel has no Landlock: the helper's own refusal cannot be tested here")
	}
	bad := p
	bad.Writable = []string{ws, filepath.Join(ws, "missing")}
	out, code := run(t, bad, "touch ran")
	if code != ExitRefused || !strings.Contains(out, "podcode sandbox:") || !strings.Contains(out, "was not run") {
		t.Errorf("a rule that cannot be applied: exit %d, %q", code, out)
	}
	if _, err := os.Stat(filepath.Join(ws, "ran")); err == nil {
		t.Error("the command ran although its sandbox could not be applied")
	}
	for _, bad := range []Policy{{Writable: []string{ws}}, {Tmp: tmp}, {Writable: []string{"rel"}, Tmp: tmp}} {
		if err := Wrap(exec.Command("bash"), bad); err == nil {
			t.Errorf("policy %+v was accepted", bad)
		}
	}
}

// A confined command holds no capability, whoever runs the server (root
// included), with the network on or off: capabilities are not what
// Landlock confines (a root server's command could otherwise open raw
// sockets on the host's network and read every client's token).
func TestNoCapabilities(t *testing.T) {
	requireLandlock(t)
	for _, network := range []bool{false, true} {
		ws, tmp, _ := dirs(t)
		out, code := run(t, Policy{Writable: []string{ws}, Tmp: tmp, Network: network}, "grep ^Cap /proc/self/status")
		if code != 0 || strings.Count(out, "\n") != 5 {
			t.Fatalf("network %v: exit %d, %q", network, code, out)
		}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if _, v, _ := strings.Cut(line, ":"); strings.Trim(strings.TrimSpace(v), "0") != "" {
				t.Errorf("network %v: %s", network, line)
			}
		}
	}
}

// Only stdin, stdout and stderr reach a confined command: a descriptor the
// server inherited without close-on-exec (from whatever started it) would
// otherwise be read past Landlock, which checks files when they are opened.
func TestInheritedDescriptorsAreClosed(t *testing.T) {
	requireLandlock(t)
	ws, tmp, outside := dirs(t)
	fd, err := syscall.Open(filepath.Join(outside, "secret"), syscall.O_RDONLY, 0) // no O_CLOEXEC
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	out, code := run(t, Policy{Writable: []string{ws}, Tmp: tmp}, fmt.Sprintf("ls /proc/self/fd; cat <&%d", fd))
	if code == 0 || strings.Contains(out, "the secret") {
		t.Errorf("descriptor %d: exit %d, %q", fd, code, out)
	}
	if fields := strings.Fields(out); len(fields) < 4 || fields[0] != "0" || fields[1] != "1" || fields[2] != "2" || fields[3] != "3" {
		t.Errorf("the command's descriptors are not 0, 1, 2 (and ls's own): %q", out)
	}
}

// markedProcesses lists the live processes whose command line starts with
// marker, as this process sees them.
func markedProcesses(marker string) []string {
	entries, _ := os.ReadDir("/proc")
	var found []string
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.HasPrefix(string(cmdline), marker+"\x00") {
			stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			if i := strings.LastIndexByte(string(stat), ')'); i > 0 && len(stat) > i+2 && stat[i+2] != 'Z' {
				found = append(found, e.Name())
			}
		}
	}
	return found
}

// Nothing a confined command starts outlives it, not even a process that
// left its process group (setsid, a double fork): the command is the
// first process of a PID namespace of its own, which the kernel empties
// when it exits. Its /proc shows its own processes only.
func TestNothingOutlivesTheCommand(t *testing.T) {
	if s := requireLandlock(t); !s.PIDNS {
		t.Skipf("%s: no PID namespace can be made here, so a process that leaves its group outlives its command (documented)", s)
	}
	ws, tmp, _ := dirs(t)
	marker := "podcode-sandbox-leftover-" + filepath.Base(filepath.Dir(ws))
	for _, network := range []bool{false, true} {
		out, code := run(t, Policy{Writable: []string{ws}, Tmp: tmp, Network: network}, fmt.Sprintf(`
			setsid bash -c 'exec -a %[1]s sleep 300' </dev/null >/dev/null 2>&1 &
			( ( exec -a %[1]s sleep 300 ) </dev/null >/dev/null 2>&1 & ) &
			nohup setsid bash -c 'exec -a %[1]s sleep 300' </dev/null >/dev/null 2>&1 &
			count() { # the processes whose first argument is the marker
				n=0
				for f in /proc/[0-9]*/cmdline; do { IFS= read -r -d '' a <"$f"; } 2>/dev/null && [ "$a" = %[1]s ] && n=$((n+1)); done
				echo $n
			}
			while [ "$(count)" -lt 3 ]; do sleep 0.01; done
			echo started`, marker))
		if code != 0 || out != "started\n" {
			t.Fatalf("network %v: exit %d, %q", network, code, out)
		}
		if left := markedProcesses(marker); len(left) > 0 {
			for _, pid := range left {
				if p, err := strconv.Atoi(pid); err == nil {
					syscall.Kill(p, syscall.SIGKILL)
				}
			}
			t.Errorf("network %v: processes %v outlived the command", network, left)
		}
	}
}

// A confined command cannot read the environment, memory map, open files
// or working directory of another confined command (another tenant's),
// with the network on or off; where a PID namespace can be made it does
// not even see it in /proc.
func TestOtherSandboxes(t *testing.T) {
	real := requireLandlock(t)
	t.Cleanup(func() { probed = real })
	modes := []Support{real}
	if real.PIDNS {
		modes = append(modes, Support{ABI: real.ABI, NetNS: real.NetNS}) // without a PID namespace
	}
	for _, s := range modes {
		probed = s
		testOtherSandboxes(t, s)
	}
}

func testOtherSandboxes(t *testing.T, s Support) {
	for _, network := range []bool{false, true} {
		wsA, tmpA, _ := dirs(t)
		wsB, tmpB, _ := dirs(t)
		marker := "podcode-sandbox-other-" + filepath.Base(filepath.Dir(wsA))
		a := exec.Command("bash", "-c", "exec -a "+marker+" sleep 300")
		a.Dir = wsA
		a.Env = append(os.Environ(), "PODCODE_TEST_OTHER=other-secret")
		if err := Wrap(a, Policy{Writable: []string{wsA}, Tmp: tmpA, Network: network}); err != nil {
			t.Fatal(err)
		}
		if err := a.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(10 * time.Second); len(markedProcesses(marker)) == 0; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the first command did not start")
			}
		}
		pid := a.Process.Pid
		out, _ := run(t, Policy{Writable: []string{wsB}, Tmp: tmpB, Network: network}, fmt.Sprintf(
			"cat /proc/%[1]d/environ /proc/%[1]d/maps; ls /proc/%[1]d/fd/ /proc/%[1]d/cwd/; grep -ls %s /proc/[0-9]*/cmdline", pid, marker))
		a.Process.Kill()
		a.Wait()
		if strings.Contains(out, "PODCODE_TEST_OTHER") || strings.Contains(out, "/usr/bin/sleep") || strings.Contains(out, wsA) {
			t.Errorf("%s, network %v: another sandbox's process was read:\n%s", s, network, out)
		}
		// Listed: grep's own command line, and, without a PID namespace,
		// the other command's (documented).
		if n := strings.Count(out, "/cmdline"); s.PIDNS && n > 1 {
			t.Errorf("%s, network %v: another sandbox's process is visible in /proc:\n%s", s, network, out)
		}
	}
}
