package proc

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// threads is how many threads this process has.
func threads(t *testing.T) int {
	t.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no Threads line in /proc/self/status")
	return 0
}

// Waiting for a process holds no thread: a server that runs thousands of
// commands at once (tenants' bash calls) must not reach the Go runtime's
// limit of 10,000 threads, which ends the process.
func TestWaitingHoldsNoThread(t *testing.T) {
	const n = 200
	ctx, cancel := context.WithCancel(context.Background())
	var started, done sync.WaitGroup
	started.Add(n)
	done.Add(n)
	before := threads(t)
	for i := 0; i < n; i++ {
		go func() {
			defer done.Done()
			// The command says it runs, then waits for its input to end.
			cmd := exec.Command("sh", "-c", "echo up; exec cat")
			r, w, err := os.Pipe()
			if err != nil {
				t.Error(err)
				started.Done()
				return
			}
			defer w.Close()
			cmd.Stdin = r
			cmd.Stdout = &lineSignal{once: &sync.Once{}, done: started.Done}
			p, err := Start(cmd)
			r.Close()
			if err != nil {
				t.Error(err)
				started.Done()
				return
			}
			stop := context.AfterFunc(ctx, p.Kill)
			defer stop()
			p.Wait()
		}()
	}
	started.Wait()
	during := threads(t)
	cancel()
	done.Wait()
	if during-before > n/4 {
		t.Errorf("%d processes being waited for took %d threads (from %d to %d)", n, during-before, before, during)
	}
}

// lineSignal calls done at its first write.
type lineSignal struct {
	once *sync.Once
	done func()
}

func (l *lineSignal) Write(p []byte) (int, error) {
	l.once.Do(l.done)
	return len(p), nil
}
