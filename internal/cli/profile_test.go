package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// PODCODE_CPUPROFILE: a profile go tool pprof reads (gzipped protobuf) once
// stopped; nothing without it; a file that cannot be created is an error
// naming the variable.
func TestCPUProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	stop, err := startCPUProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1e6; i++ {
		_ = strings.Repeat("x", i%7)
	}
	stop()
	data, err := os.ReadFile(path)
	if err != nil || len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		t.Fatalf("profile: %v, %d bytes", err, len(data))
	}

	stop, err = startCPUProfile("")
	if err != nil {
		t.Fatal(err)
	}
	stop()

	_, err = startCPUProfile(filepath.Join(t.TempDir(), "missing", "cpu.pprof"))
	if err == nil || !strings.Contains(err.Error(), "PODCODE_CPUPROFILE") || !strings.Contains(err.Error(), "missing") {
		t.Errorf("error %v", err)
	}
}
