package cli

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/server"
	"github.com/podcode/podcode/internal/tui"
)

// chatFlags are the terminal chat's flags, on `podcode` and `podcode chat`.
type chatFlags struct {
	session, attach, data string
	cont                  bool
}

func (f *chatFlags) add(cmd *cobra.Command) {
	cmd.Flags().BoolVarP(&f.cont, "continue", "c", false, "resume the newest session")
	cmd.Flags().StringVar(&f.session, "session", "", "resume this session")
	cmd.Flags().StringVar(&f.attach, "attach", "", "chat with the podcode serve at this URL (its token from PODCODE_API_TOKEN) instead of one in this process")
	dataFlag(cmd, &f.data)
}

const chatLong = `Opens the terminal chat: the answer streams in, each tool call shows its status and,
under it, every hook that ran around it (which plugin changed what, which guard voted,
how long each took); a permission question is answered with y or n; Esc cancels the
turn; /sessions and /resume <n> resume a session (or start with --continue, or
--session ID); the project's and plugins' slash commands complete with Tab.

The chat is a client of Podcode's HTTP API: of a server it runs in this process, on
loopback with a token of its own (its log goes to chat.log in the data directory), or,
with --attach URL, of a podcode serve elsewhere (the token from PODCODE_API_TOKEN).
`

func newChatCmd() *cobra.Command {
	var f chatFlags
	cmd := &cobra.Command{
		Use:   "chat [--continue | --session ID] [--attach URL]",
		Short: "Chat in the terminal (what podcode with no arguments opens in a terminal)",
		Long:  chatLong + "\n" + dataHelp,
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return runChat(cmd, f) },
	}
	f.add(cmd)
	return cmd
}

// inTerminal reports whether the command reads and writes a terminal.
func inTerminal(cmd *cobra.Command) bool {
	in, ok1 := cmd.InOrStdin().(*os.File)
	out, ok2 := cmd.OutOrStdout().(*os.File)
	return ok1 && ok2 && isTerminal(in) && isTerminal(out)
}

func runChat(cmd *cobra.Command, f chatFlags) error {
	if !inTerminal(cmd) {
		return errors.New("the chat needs a terminal; for one turn from a script, use podcode run")
	}
	if f.cont && f.session != "" {
		return usageError(errors.New("--continue and --session each pick the session: give one"))
	}
	ctx, stop := signal.NotifyContext(cmdContext(cmd), syscall.SIGTERM)
	defer stop()
	o := tui.Options{Session: f.session, Continue: f.cont}
	if f.attach != "" {
		o.Client = &tui.Client{Base: strings.TrimRight(f.attach, "/"), Token: os.Getenv("PODCODE_API_TOKEN")}
		return tui.Run(ctx, o)
	}
	// In process: the log goes to a file, not over the chat.
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	dir, err := app.DataDir(cwd, f.data)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	logPath := filepath.Join(dir, "chat.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logFile.Close()
	bo := withData(f.data)
	bo.LogTo = logFile
	return bootedWith(ctx, bo, func(a *app.App) error {
		printSkipped(cmd.ErrOrStderr(), a) // before the chat takes the screen
		printModelChoice(cmd.ErrOrStderr(), a)
		ag, release, err := startAgent(ctx, a, "chat")
		if err != nil {
			return err
		}
		defer release()
		token := rand.Text()
		srv := server.New(ag, token)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		hs, ln := srv.HTTP(ln, server.LimitsFrom(a.Config.Server))
		go hs.Serve(ln)
		defer func() {
			shut, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := srv.Shutdown(shut); err != nil {
				a.Log.Warn("chat: stopping the turns", "error", err.Error())
			}
			hs.Shutdown(shut)
		}()
		a.Log.Info("chat: serving the chat on loopback", "addr", ln.Addr().String())
		o.Client = &tui.Client{Base: "http://" + ln.Addr().String(), Token: token}
		err = tui.Run(ctx, o)
		if fi, serr := logFile.Stat(); serr == nil && fi.Size() > 0 && err == nil {
			fmt.Fprintf(cmd.ErrOrStderr(), "podcode: the chat's log is %s\n", logPath)
		}
		return err
	})
}
