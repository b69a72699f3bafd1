package claudehooks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/podcode/podcode/internal/proc"
	"github.com/podcode/podcode/plugin"
)

// maxOutput bounds what a hook may write to stdout or to stderr; the rest
// is dropped.
const maxOutput = 1 << 20

// ProjectDirEnv is the environment variable that holds the project
// directory, for scripts ("$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh).
const ProjectDirEnv = "CLAUDE_PROJECT_DIR"

// Options configure Register.
type Options struct {
	// ProjectDir is the project: hooks run there, and it is
	// CLAUDE_PROJECT_DIR and the hooks' cwd. Relative paths are made
	// absolute; "" is the current directory.
	ProjectDir string
	// Log receives the settings' warnings and what async hooks did; the
	// default is slog.Default().
	Log *slog.Logger
	// Env is the hooks' environment, CLAUDE_PROJECT_DIR excepted, which is
	// always set, and CLAUDE_PLUGIN_ROOT, set for a plugin's hooks only;
	// nil means the server's own.
	Env []string
	// Check, when set, is called before each run of a hook (on a tool
	// event, once the hook matches the call); an error stops the hook. A
	// guard (Hook.Guard) then denies the call, with the error in its
	// message: a guard that changed must not silently stop guarding. Any
	// other hook counts it as its error. Podcode checks there that the hook
	// is still what the user trusted.
	Check func(h *Hook) error
	// Transcripts, when set, keep the sessions' transcripts: every hook
	// input's transcript_path names one, and Stop's last_assistant_message
	// and stop_hook_active come from it. Nil leaves transcript_path "".
	Transcripts *Transcripts
}

// Registration is what Register set up. Its owner calls Close when the
// server stops.
type Registration struct {
	ctx    context.Context // async hooks run under it
	cancel context.CancelFunc

	mu     sync.Mutex
	closed bool
	async  sync.WaitGroup
}

func newRegistration() *Registration {
	ctx, cancel := context.WithCancel(context.Background())
	return &Registration{ctx: ctx, cancel: cancel}
}

// AsyncGrace is how long Close lets async hooks still running finish
// before it kills them: a Stop hook that sends a notification at the end of
// `podcode run` gets to send it.
const AsyncGrace = 5 * time.Second

// Close waits for the async hooks still running, at most AsyncGrace, then
// kills their process groups and waits until they have returned; an async
// hook that fires afterwards does not start. The handlers stay registered.
// Close may be called more than once, and on nil.
func (g *Registration) Close() {
	if g == nil {
		return
	}
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	done := make(chan struct{})
	go func() {
		g.async.Wait()
		close(done)
	}()
	grace := time.NewTimer(AsyncGrace)
	defer grace.Stop()
	select {
	case <-done:
	case <-grace.C:
	}
	g.cancel()
	<-done
}

// goAsync runs f on a goroutine Close waits for, unless Close was called.
func (g *Registration) goAsync(f func(ctx context.Context)) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.async.Add(1)
	go func() {
		defer g.async.Done()
		f(g.ctx)
	}()
	return true
}

// Register adds a handler to d for each of s's hooks (see the package
// documentation), in plugin.LayerProject, and logs s.Warnings; it adds none
// when s.DisableAllHooks. It fails for a hook it cannot register (a Hook
// made by hand with an unknown event or a bad matcher, or one the dispatcher
// refuses), naming it; the other hooks are registered all the same. The
// Registration it returns, never nil, stops the async hooks.
func Register(d *plugin.Dispatcher, s *Settings, o Options) (*Registration, error) {
	g := newRegistration()
	if d == nil {
		return g, errors.New("claudehooks: register: nil dispatcher")
	}
	if s == nil {
		return g, nil
	}
	log := o.Log
	if log == nil {
		log = slog.Default()
	}
	dir, err := filepath.Abs(o.ProjectDir)
	if err != nil {
		return g, fmt.Errorf("claudehooks: register: project directory: %w", err)
	}
	if s.DisableAllHooks {
		if len(s.Hooks) > 0 {
			log.Info("claude hooks: disableAllHooks is true; no Claude Code hook runs", "files", s.Files)
		}
		return g, nil
	}
	for _, w := range s.Warnings {
		log.Warn("claude hooks: " + w)
	}
	r := &runner{dir: dir, env: hookEnv(o.Env, dir), log: log, check: o.Check, reg: g, tr: o.Transcripts, shell: defaultShell()}
	var errs []error
	for i := range s.Hooks {
		h := &s.Hooks[i]
		event, ok := events[h.Event]
		if !ok {
			errs = append(errs, fmt.Errorf("%s: %s: Podcode does not run %s hooks", h.File, h.Where, h.Event))
			continue
		}
		if !h.compiled {
			if err := h.compile(); err != nil {
				errs = append(errs, fmt.Errorf("%s: %s: %w", h.File, h.Where, err))
				continue
			}
		}
		opts := []plugin.RegisterOption{plugin.WithLayer(plugin.LayerProject), plugin.WithSource(h.Source())}
		if event.IsToolEvent() {
			if re := h.match.podcodeRegexp(); re != nil {
				opts = append(opts, plugin.WithMatcher(re))
			}
		}
		if err := d.Register(event, r.handler(h), opts...); err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: %w", h.File, h.Where, err))
		}
	}
	return g, errors.Join(errs...)
}

// hookEnv is base (the process's environment when nil) with
// CLAUDE_PROJECT_DIR set to dir.
func hookEnv(base []string, dir string) []string {
	if base == nil {
		base = os.Environ()
	}
	env := make([]string, 0, len(base)+1)
	for _, kv := range base {
		if !strings.HasPrefix(kv, ProjectDirEnv+"=") && !strings.HasPrefix(kv, PluginRootEnv+"=") {
			env = append(env, kv)
		}
	}
	return append(env, ProjectDirEnv+"="+dir)
}

type runner struct {
	dir   string
	env   []string
	log   *slog.Logger
	check func(h *Hook) error
	reg   *Registration
	tr    *Transcripts
	shell string // what runs a command without a shell of its own: defaultShell
}

// defaultShell is the shell of hooks that name none: bash, Claude Code's
// (hooks written for it use [[ ]], arrays, pipefail), or sh where there is
// no bash.
func defaultShell() string {
	if _, err := exec.LookPath("bash"); err == nil {
		return "bash"
	}
	return "sh"
}

// handler runs h once per call; see fromClaudeOutput for what its ending
// means.
func (r *runner) handler(h *Hook) plugin.HookHandler {
	return func(ctx context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
		in, toolInput, err := claudeInput(p, r.dir, r.tr)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", h.Source(), err)
		}
		if _, ok := matchValue[h.Event]; ok && !h.match.match(eventValue(h.Event, p)) {
			return nil, nil // SessionEnd's matcher: "clear" or "other" this time
		}
		if p.Event.IsToolEvent() {
			// The dispatcher's matcher is over Podcode's ids; this is the
			// exact test, over Claude Code's names.
			names := payloadNames(p)
			if !h.match.match(names...) || h.cond != nil && !h.cond.matches(names, toolInput, r.dir) {
				return nil, nil
			}
		}
		if r.check != nil {
			if err := r.check(h); err != nil {
				if h.Guard() {
					return &plugin.HookResult{Decision: plugin.DecisionDeny,
						Message: fmt.Sprintf("%s is a guard and does not run: %v", h.Source(), err)}, nil
				}
				return nil, fmt.Errorf("%s: not run: %w", h.Source(), err)
			}
		}
		input, err := marshal(in)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", h.Source(), err)
		}
		if h.Async {
			// Not the dispatch's context: the hook outlives the dispatch,
			// until it ends or the server stops.
			if !r.reg.goAsync(func(ctx context.Context) { r.async(ctx, h, input) }) {
				r.log.Info("claude hooks: async hook not started: stopping", "source", h.Source())
			}
			return nil, nil
		}
		code, stdout, stderr, err := r.run(ctx, h, input)
		if err != nil {
			return nil, err
		}
		res, err := fromClaudeOutput(h.Event, code, stdout, stderr)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", h.Source(), err)
		}
		if res != nil {
			if u, ok := res.Data[DataUpdatedInput].(map[string]any); ok {
				res.Data[DataUpdatedInput] = fromClaudeArgs(p.ToolName, u, r.dir)
			}
		}
		return res, nil
	}
}

// async runs a background hook: it never votes, its output is dropped, and
// a failure is logged.
func (r *runner) async(ctx context.Context, h *Hook, input []byte) {
	code, _, stderr, err := r.run(ctx, h, input)
	switch {
	case err != nil:
		r.log.Warn("claude hooks: async hook failed", "source", h.Source(), "error", err)
	case code != 0:
		r.log.Warn("claude hooks: async hook failed", "source", h.Source(), "exit", code, "stderr", firstLine(stderr))
	default:
		r.log.Debug("claude hooks: async hook done", "source", h.Source())
	}
}

// run runs h's command with input on stdin and returns its exit code and
// output. Not finishing within the hook's timeout, or before ctx ends, and
// not starting at all are errors. The hook is done when its command exits
// (proc.Run): what it left running is killed with its process group, and
// its answer stands.
func (r *runner) run(ctx context.Context, h *Hook, input []byte) (int, []byte, []byte, error) {
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var cmd *exec.Cmd
	switch {
	case h.Exec:
		args := make([]string, len(h.Args))
		for i, a := range h.Args {
			args[i] = expandVars(a, r.dir, h.PluginRoot)
		}
		cmd = exec.Command(expandVars(h.Command, r.dir, h.PluginRoot), args...)
	case h.Shell != "":
		cmd = exec.Command(h.Shell, "-c", h.Command)
	default:
		cmd = exec.Command(r.shell, "-c", h.Command)
	}
	cmd.Dir, cmd.Env = r.dir, r.env
	if h.PluginRoot != "" {
		cmd.Env = append(slices.Clip(r.env), PluginRootEnv+"="+h.PluginRoot)
	}
	start := time.Now()
	code, stdout, stderr, err := proc.Output(tctx, cmd, input, maxOutput)
	switch {
	case ctx.Err() != nil:
		return 0, nil, nil, fmt.Errorf("%s: stopped after %s: %w", h.Source(), time.Since(start).Round(time.Millisecond), ctx.Err())
	case tctx.Err() != nil:
		return 0, nil, nil, fmt.Errorf("%s: did not finish within its timeout of %s and was killed", h.Source(), timeout)
	case err != nil:
		return 0, nil, nil, fmt.Errorf("%s: %w", h.Source(), err)
	}
	return code, stdout, stderr, nil
}

// expandVars substitutes ${CLAUDE_PROJECT_DIR} and, for a plugin's hook,
// ${CLAUDE_PLUGIN_ROOT} in an exec-form command or argument, where no
// shell does it.
func expandVars(s, dir, pluginRoot string) string {
	s = strings.ReplaceAll(s, "${"+ProjectDirEnv+"}", dir)
	if pluginRoot != "" {
		s = strings.ReplaceAll(s, "${"+PluginRootEnv+"}", pluginRoot)
	}
	return s
}
