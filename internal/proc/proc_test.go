package proc

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/proctest"
)

func TestHead(t *testing.T) {
	h := Head{Max: 5}
	h.Write([]byte("abc"))
	h.Write([]byte("defg"))
	if h.String() != "abcde" || h.Dropped != 2 {
		t.Fatalf("%q dropped %d", h.String(), h.Dropped)
	}
}

// writes records the writes made to it.
type writes struct{ sizes []int }

func (w *writes) Write(p []byte) (int, error) { w.sizes = append(w.sizes, len(p)); return len(p), nil }

// A command's output reaches the caller's writer in writes of what was
// read, never an empty one (the end of the pipe is not a write).
func TestOutputHasNoEmptyWrites(t *testing.T) {
	var w writes
	cmd := exec.Command("sh", "-c", "printf 12345678; sleep 0.3")
	cmd.Stdout = &w
	if code, err := Run(context.Background(), cmd); err != nil || code != 0 {
		t.Fatal(code, err)
	}
	if fmt.Sprint(w.sizes) != "[8]" {
		t.Errorf("writes of %v bytes, want one of 8", w.sizes)
	}
}

// A command is done when the process Podcode started exits: a child left
// in the background, holding the output open, does not make it wait or
// fail, and is killed with the group.
func TestRunEndsAtTheExitAndKillsTheGroup(t *testing.T) {
	var out bytes.Buffer
	cmd := exec.Command("sh", "-c", "sleep 300 & echo done; exit 4")
	cmd.Stdout, cmd.Stderr = &out, &out
	p, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	code, err := p.Wait()
	if err != nil || code != 4 || out.String() != "done\n" {
		t.Fatalf("%d %q %v", code, out.String(), err)
	}
	proctest.AwaitGroupGone(t, p.Pid())
}

// When the context ends first, the whole group is killed: the background
// child too.
func TestRunContextKillsTheGroup(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	var out Head
	out.Max = 10
	cmd := exec.Command("sh", "-c", "sleep 30 & echo $$; sleep 30")
	cmd.Stdout = &out
	code, err := Run(ctx, cmd)
	if err != nil || code != -1 || ctx.Err() == nil {
		t.Fatalf("%d %v %v", code, err, ctx.Err())
	}
	var pgid int
	if _, err := fmt.Sscan(out.String(), &pgid); err != nil {
		t.Fatal(err)
	}
	proctest.AwaitGroupGone(t, pgid)
}

// Output gives the command its input, keeps the head of each output, and
// returns a failing exit status as a status, not an error.
func TestOutput(t *testing.T) {
	ctx := context.Background()
	code, stdout, stderr, err := Output(ctx, exec.Command("sh", "-c", "cat; echo oops >&2; exit 3"), []byte("hello world"), 5)
	if err != nil || code != 3 || string(stdout) != "hello" || string(stderr) != "oops\n" {
		t.Fatalf("%d %q %q %v", code, stdout, stderr, err)
	}
	code, stdout, _, err = Output(ctx, exec.Command("sh", "-c", "echo ok"), nil, 100)
	if err != nil || code != 0 || string(stdout) != "ok\n" {
		t.Fatalf("%d %q %v", code, stdout, err)
	}
	if _, _, _, err := Output(ctx, exec.Command("/no/such/program"), nil, 100); err == nil {
		t.Fatal("a program that does not start is an error")
	}
	// An input nobody reads, even one a child holds open, is no error.
	big := bytes.Repeat([]byte("x"), 1<<20)
	for _, script := range []string{"exit 0", "sleep 300 & exit 0"} {
		if code, _, _, err := Output(ctx, exec.Command("sh", "-c", script), big, 100); err != nil || code != 0 {
			t.Errorf("%s: %d %v", script, code, err)
		}
	}
}

// A child that left the group (setsid) and holds the output open is not
// killed, but the call still returns, with everything written before the
// exit, well past what a pipe holds.
func TestOutputOfAnEscapedChild(t *testing.T) {
	cmd := exec.Command("sh", "-c", "setsid sleep 300 & echo $! >&2; head -c 1000000 /dev/zero | tr '\\0' x")
	code, stdout, stderr, err := Output(context.Background(), cmd, nil, 2<<20)
	var escaped int
	if _, err := fmt.Sscan(string(stderr), &escaped); err == nil && escaped > 1 {
		syscall.Kill(escaped, syscall.SIGKILL)
	}
	if err != nil || code != 0 || len(stdout) != 1000000 || strings.Trim(string(stdout), "x") != "" {
		t.Fatalf("%d, %d bytes, %v", code, len(stdout), err)
	}
}

// What a process wrote before it exited is kept even when its reader
// falls behind past DrainGrace (a loaded machine): the pipe is read to its
// end once more after the grace.
func TestOutputWrittenBeforeTheExitIsKept(t *testing.T) {
	cmd := exec.Command("sh", "-c", "head -c 60000 /dev/zero | tr '\\0' x") // fits in a pipe
	started := make(chan *Process, 1)
	var out bytes.Buffer
	cmd.Stdout = writerFunc(func(b []byte) (int, error) {
		if out.Len() == 0 {
			p := <-started
			<-p.Exited()
			time.Sleep(2 * DrainGrace) // behind: the grace ends meanwhile
		}
		return out.Write(b)
	})
	p, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	started <- p
	if code, err := p.Wait(); err != nil || code != 0 || out.Len() != 60000 {
		t.Fatalf("%d %v: %d bytes of 60000", code, err, out.Len())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// Start keeps what the caller (a sandbox) set up in SysProcAttr, and takes
// an *os.File as it is.
func TestStartKeepsTheCallersSetup(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command("sh", "-c", "echo to-the-file")
	cmd.Stdout = w
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	p, err := Start(cmd)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if code, err := p.Wait(); err != nil || code != 0 {
		t.Fatal(code, err)
	}
	if cmd.SysProcAttr.Pdeathsig != syscall.SIGTERM || !cmd.SysProcAttr.Setpgid {
		t.Errorf("%+v", cmd.SysProcAttr)
	}
	got := make([]byte, 100)
	n, _ := r.Read(got)
	if string(got[:n]) != "to-the-file\n" {
		t.Errorf("%q", got[:n])
	}
}

// BenchmarkOutput is one short command with input and output: `sh -c cat`.
func BenchmarkOutput(b *testing.B) {
	input := []byte(`{"hook_event_name":"PreToolUse"}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if code, out, _, err := Output(ctx, exec.Command("sh", "-c", "cat"), input, 1<<20); err != nil || code != 0 || len(out) != len(input) {
			b.Fatal(code, err)
		}
	}
}
