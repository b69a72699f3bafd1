package jsplugin_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/jsplugin"
)

// Figures for the README:
//
//	go test -run '^$' -bench . -benchmem ./internal/jsplugin/

const zodPlugin = `import { z } from "zod"
export default {
  id: "zod-%02d",
  server: () => ({
    tool: () => [{ id: "tool_%02d", description: "a tool", parameters: z.object({ path: z.string(), n: z.number().int().optional() }),
      execute: async (args: { path: string }) => ({ title: "t", output: args.path }) }],
    "tool.execute.before": (input: any) => input.toolID === "bash" ? { ...input, args: { ...input.args, timeout: 1000 } } : undefined,
  }),
}
`

// zodProject writes n TypeScript plugins that import zod 4, beside the
// fixtures' node_modules.
func zodProject(b *testing.B, n int) (string, *config.Config) {
	b.Helper()
	modules, _ := filepath.Abs(filepath.Join("testdata", "node_modules"))
	if _, err := os.Stat(filepath.Join(modules, "zod")); err != nil {
		b.Fatalf("zod is not installed: run npm ci in internal/jsplugin/testdata")
	}
	dir := b.TempDir()
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		b.Fatal(err)
	}
	cfg := &config.Config{UserDir: b.TempDir()}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("p%02d.ts", i)
		os.WriteFile(filepath.Join(dir, name), []byte(fmt.Sprintf(zodPlugin, i, i)), 0o644)
		cfg.Plugin = append(cfg.Plugin, config.PluginRef{Spec: "./" + name, Dir: dir})
	}
	return dir, cfg
}

func load(b *testing.B, dir string, cfg *config.Config, bundler *jsplugin.Bundler) *jsplugin.Set {
	set, err := jsplugin.Load(context.Background(), jsplugin.Options{Cwd: dir, Config: cfg, Bundler: bundler,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	if len(set.Plugins) != len(cfg.Plugin) || len(set.Warnings) > 0 {
		b.Fatalf("loaded %d of %d: %v", len(set.Plugins), len(cfg.Plugin), set.Warnings)
	}
	return set
}

// Boot of 20 TypeScript plugins that import zod 4: cold (nothing cached:
// esbuild bundles every plugin and zod) and with the bundle cache warm.
func BenchmarkBoot20ZodPlugins(b *testing.B) {
	dir, cfg := zodProject(b, 20)
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			load(b, dir, cfg, jsplugin.NewBundler(b.TempDir())).Close()
		}
	})
	b.Run("cached", func(b *testing.B) {
		cache := b.TempDir()
		load(b, dir, cfg, jsplugin.NewBundler(cache)).Close()
		b.ResetTimer()
		for b.Loop() {
			load(b, dir, cfg, jsplugin.NewBundler(cache)).Close()
		}
	})
}

// Memory per loaded zod-4 plugin: the Go heap a set of n plugins holds
// (what closing it frees: each runtime, its zod, the compiled bundles),
// its growth from 10 to 30 plugins over 20, so that what all plugins share
// (zod compiled once) does not count, and that of 30 plugins over 30,
// which does.
func BenchmarkMemoryPerZodPlugin(b *testing.B) {
	heap := func(n int) float64 {
		dir, cfg := zodProject(b, n)
		cache := b.TempDir()
		goroutines := runtime.NumGoroutine()
		load(b, dir, cfg, jsplugin.NewBundler(cache)).Close() // warm the bundle cache
		settle(b, goroutines)
		var with, without runtime.MemStats
		set := load(b, dir, cfg, jsplugin.NewBundler(cache))
		runtime.GC()
		runtime.ReadMemStats(&with)
		set.Close()
		settle(b, goroutines) // the plugins' loops have ended: their runtimes are garbage
		runtime.GC()
		runtime.ReadMemStats(&without)
		return float64(with.HeapAlloc) - float64(without.HeapAlloc)
	}
	var per, avg float64
	for b.Loop() {
		h10, h30 := heap(10), heap(30)
		per = (h30 - h10) / 20
		avg = h30 / 30
	}
	b.ReportMetric(per/(1<<20), "MiB/plugin")
	b.ReportMetric(avg/(1<<20), "MiB/plugin-with-shared")
}

// settle waits until no more goroutines run than n (a closed set's loops
// end after Close returns).
func settle(b *testing.B, n int) {
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			b.Fatalf("%d goroutines still run after the plugins closed, %d before", runtime.NumGoroutine(), n)
		}
		time.Sleep(time.Millisecond)
	}
}
