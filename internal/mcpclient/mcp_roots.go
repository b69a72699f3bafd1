//lint:file-ignore SA1019 MCP's roots are deprecated from protocol 2026-07-28 (SEP-2577), not removed: servers of 2025-11-25 and before ask for them.
package mcpclient

import (
	"context"
	"net/url"
	"path/filepath"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/tool"
)

// roots is the client's receiving middleware that answers roots/list: one
// file:// root, the workspace of the call to this server in flight (a
// tenant's turn works in its own), else, with none, the project directory
// (Options.Cwd: where the server was started for). While calls of several
// parties are in flight, no root: it cannot say whose to give. Podcode
// advertises roots without listChanged: the answer depends on the call,
// and a server asks again when it wants to know. Every other method goes
// on to the SDK's handlers.
func (s *Server) roots(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method != "roots/list" {
			return next(ctx, method, req)
		}
		dir := s.set.opts.Cwd
		call, mixed := s.calls.latest()
		if call != nil {
			dir = tool.WorkspaceFrom(call.ctx, tool.Workspace{Root: dir}).Root
		}
		if dir == "" || mixed {
			return &sdk.ListRootsResult{Roots: []*sdk.Root{}}, nil
		}
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}
		return &sdk.ListRootsResult{Roots: []*sdk.Root{{URI: u.String(), Name: filepath.Base(dir)}}}, nil
	}
}
