//lint:file-ignore SA1019 MCP's logging is deprecated from protocol 2026-07-28 (SEP-2577), not removed: clients of 2025-11-25 set a level and read these.

package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sendLog sends ss's client a notifications/message at level (one of
// MCP's) from logger, when the client set a level at or below it (the SDK
// drops it otherwise). A lost message is nothing to stop a call for.
func sendLog(ctx context.Context, ss *mcp.ServerSession, level, logger string, data any) {
	_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: mcp.LoggingLevel(level), Logger: logger, Data: data})
}
