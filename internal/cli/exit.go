package cli

import (
	"errors"
	"fmt"
)

// The exit statuses of every command (docs/cli.md, "Exit status"):
//
//	0  what was asked was done, and nothing went wrong that you should see
//	1  it could not be done: the project did not boot, the turn failed or
//	   was cancelled, a request was refused
//	2  the command line is wrong: an unknown command or flag, missing or
//	   extra arguments
//	3  it was done, but something went wrong that you should see: a plugin
//	   that did not load (plugin list, plugin check), a hook or handler that
//	   failed or a deny (hook fire), a tool call of the turn that failed,
//	   was denied or had arguments its schema refused (run)
const (
	exitFailed   = 1
	exitUsage    = 2
	exitProblems = 3
)

// exitError is an error with the exit status it means.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// problems is the error of a command that did its job with problems to
// see (exit status 3).
func problems(format string, a ...any) error {
	return &exitError{code: exitProblems, err: fmt.Errorf(format, a...)}
}

// usageError marks err as a mistake of the command line (exit status 2).
func usageError(err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: exitUsage, err: err}
}

// exitCode is the exit status err means.
func exitCode(err error) int {
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	return exitFailed
}
