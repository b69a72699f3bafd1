// Package proctest looks at processes through /proc, for tests that check
// what a command left running: whether any process of a process group is
// still alive.
package proctest

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Group lists the live processes (zombies excepted) whose process group is
// pgid.
func Group(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
		i := strings.LastIndexByte(string(stat), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g == pgid {
			pids = append(pids, pid)
		}
	}
	return pids
}

// AwaitGroupGone fails t unless, within 10 s, no process of group pgid is
// alive. (A killed process is gone a moment after the signal, not at once.)
func AwaitGroupGone(t testing.TB, pgid int) {
	t.Helper()
	if pgid <= 1 {
		t.Fatalf("no process group to check (%d)", pgid)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		live := Group(pgid)
		if len(live) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes %v of group %d are still alive", live, pgid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ReadPID reads a process or group id that a script wrote to path.
func ReadPID(t testing.TB, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the script did not write its id: %v", err)
	}
	id, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("%s: %q is not an id", path, data)
	}
	return id
}
