// Package claudehooks runs Claude Code hooks, the "hooks" block of Claude
// Code's settings files and of Claude Code plugins, as Podcode lifecycle
// handlers, so that scripts written for Claude Code keep working unchanged.
//
//	{"hooks": {
//	  "PreToolUse": [{"matcher": "Bash|Write", "hooks": [
//	    {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check.sh", "timeout": 30}]}],
//	  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "./prompt-guard.sh"}]}]
//	}}
//
// # Lifecycle of a Claude Code hook
//
//  1. Found: LoadUser reads the user's ~/.claude/settings.json (UserDir),
//     LoadFile each of <project>/.claude/settings.json and
//     <project>/.claude/settings.local.json (Load reads both), LoadPlugin a
//     Claude Code plugin (.claude-plugin/plugin.json, hooks/hooks.json;
//     InstalledPlugins finds the ones Claude Code installed, which
//     enabledPlugins enables). A missing file is no error; no file at all
//     gives empty Settings. The caller (internal/app) decides which of
//     them run: the user's own, and the project's once trusted, each file
//     and plugin its own trust item (TrustItem).
//  2. Parsed: Parse decodes the hooks block of one file (every other
//     top-level key but disableAllHooks is ignored). Each handler becomes
//     a Hook: its event is mapped to a Podcode event, its matcher compiled,
//     its `if` rule parsed. A mistake is an error that names the file and
//     the entry ("hooks.PreToolUse[0].hooks[1]"); an event Claude Code has
//     and Podcode cannot honour, or a hook that could never run here, is a
//     warning in Settings.Warnings and the hook is dropped.
//  3. Merged (Merge): the user's file, settings.json, settings.local.json,
//     then the plugins, each appended in file order. A handler defined the
//     same way (event, matcher, command, arguments, if) in two runs once, as
//     in Claude Code. disableAllHooks is taken from the last file that sets
//     it; when true, Register registers nothing.
//  4. Registered: Register adds one handler per Hook to a plugin.Dispatcher
//     in plugin.LayerProject, named "claude: <command> (<file>)", limited by
//     its matcher (plugin.WithMatcher, translated to Podcode's tool names)
//     on tool events. Hooks run in that order, one after another, where
//     Claude Code runs them in parallel; the dispatcher's limits apply (ten
//     handlers an event, one 60 s deadline a dispatch).
//  5. Run, per call: the payload is translated to Claude Code's hook input
//     (toClaudeInput: tool and field names, tool_response, prompt, ...), the
//     command runs through `bash -c` (Claude Code's shell; sh where there is
//     no bash, or with "shell": "sh") in the project directory with that JSON
//     on stdin, CLAUDE_PROJECT_DIR set and, for a plugin's hook,
//     CLAUDE_PLUGIN_ROOT, and its exit code and output are
//     translated back to a vote (fromClaudeOutput): exit 2 blocks with
//     stderr, JSON on stdout decides, other exit codes are non-blocking
//     errors. The dispatcher logs errors and carries on; a Claude Code hook
//     that fails is never fail-closed, as in Claude Code. Before it runs,
//     Options.Check may stop it (Podcode checks that it is still what the
//     user trusted); a guard (Hook.Guard: PreToolUse, not async) stopped
//     there denies the call it matches instead, so that a changed guard
//     does not silently stop guarding. A guard the user trusted (as the
//     trust store recorded it: Settings.Guards) that the settings no
//     longer declare as it was, or that went with its file, is registered
//     from the record instead (RegisterRecordedGuard).
//
// Transcripts keep each session's transcript in Claude Code's JSONL format,
// appended as the session stores its messages; every input's
// transcript_path names it.
//
// docs/claude-hooks.md has the full mapping and what is not supported.
package claudehooks
