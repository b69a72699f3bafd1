package e2e

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"os/exec"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/apptest"
)

// A client without a token opens connections, each sending one request and
// then keeping the connection open, until a server whose process may open
// only 64 files would have run out: a client with the token must still be
// served. The user's config caps the connections well below that
// (server.max_conns, server.max_unauthenticated_conns).
func TestUnauthenticatedConnectionsCannotLockOut(t *testing.T) {
	dir := apptest.Dir(t, apptest.Project{})
	home := userHome(t, `{"server": {"token": "tok", "max_conns": 16, "max_unauthenticated_conns": 8}}`)
	addr := freePort(t)
	var logs bytes.Buffer
	// The hard limit too: Go raises the soft limit to the hard one.
	cmd := exec.Command("sh", "-c", `ulimit -n 64 && exec "$0" serve --addr "$1"`, binary, addr)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env(home), &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

	get := func(c net.Conn, token string) (int, error) {
		req, _ := http.NewRequest("GET", "http://"+addr+"/sessions", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if err := req.Write(c); err != nil {
			return 0, err
		}
		c.SetReadDeadline(time.Now().Add(20 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(c), req)
		if err != nil {
			return 0, err
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode, nil
	}
	dial := func() net.Conn {
		c, err := net.DialTimeout("tcp", addr, 20*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			code, err := get(c, "tok")
			c.Close()
			if err == nil && code == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not come up; its output:\n%s", logs.String())
		}
	}

	for i := 0; i < 100; i++ {
		c := dial()
		req, _ := http.NewRequest("GET", "http://"+addr+"/sessions", nil)
		req.Write(c) // answered 401 (or never, once the server is out of files); never read
	}
	code, err := get(dial(), "tok")
	if err != nil || code != 200 {
		t.Fatalf("the client with the token, after 100 unauthenticated connections: %d, %v", code, err)
	}
}
