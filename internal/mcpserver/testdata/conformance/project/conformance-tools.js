// The tools the MCP conformance suite's server scenarios call by name,
// written as any project's plugin would write them: Podcode serves them
// at /mcp through the same hooks as its own tools.
// A 1x1 red PNG and a short silent WAV, base64.
const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
const wav = "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA"

export default {
  id: "conformance-tools",
  server: () => ({
    tool: () => [
      {
        id: "test_simple_text",
        description: "Returns a fixed text.",
        parameters: { type: "object", properties: {} },
        execute: () => ({ title: "test_simple_text", output: "This is a simple text response for testing." }),
      },
      {
        id: "test_image_content",
        description: "Returns an image.",
        parameters: { type: "object", properties: {} },
        execute: () => ({ title: "test_image_content", output: "A red pixel:",
          attachments: [{ type: "image", mimeType: "image/png", data: png }] }),
      },
      {
        id: "test_audio_content",
        description: "Returns a sound.",
        parameters: { type: "object", properties: {} },
        execute: () => ({ title: "test_audio_content", output: "A short silence:",
          attachments: [{ type: "audio", mimeType: "audio/wav", data: wav }] }),
      },
      {
        id: "test_embedded_resource",
        description: "Returns an embedded resource.",
        parameters: { type: "object", properties: {} },
        execute: () => ({ title: "test_embedded_resource", output: "A resource:",
          attachments: [{ type: "resource", uri: "test://embedded-resource", mimeType: "text/plain",
            text: "This is an embedded resource content." }] }),
      },
      {
        id: "test_multiple_content_types",
        description: "Returns text, an image and a resource.",
        parameters: { type: "object", properties: {} },
        execute: () => ({ title: "test_multiple_content_types", output: "Multiple content types test:",
          attachments: [
            { type: "image", mimeType: "image/png", data: png },
            { type: "resource", uri: "test://mixed-content-resource", mimeType: "application/json",
              text: JSON.stringify({ test: "data", value: 123 }) },
          ] }),
      },
      {
        id: "test_elicitation",
        description: "Asks the user for a name and an email.",
        parameters: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
        execute: async (args, ctx) => {
          const answer = await ctx.ask({ message: args.message, schema: {
            type: "object",
            properties: {
              username: { type: "string", description: "User's response" },
              email: { type: "string", description: "User's email address" },
            },
            required: ["username", "email"],
          } })
          return { title: "test_elicitation", output: `User response: action=${answer.action}, content=${JSON.stringify(answer.content || {})}` }
        },
      },
      {
        id: "test_elicitation_sep1034_defaults",
        description: "Asks for values that all have defaults.",
        parameters: { type: "object", properties: {} },
        execute: async (args, ctx) => {
          const answer = await ctx.ask({ message: "Please review your details", schema: {
            type: "object",
            properties: {
              name: { type: "string", default: "John Doe" },
              age: { type: "integer", default: 30 },
              score: { type: "number", default: 95.5 },
              status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
              verified: { type: "boolean", default: true },
            },
          } })
          return { title: "test_elicitation_sep1034_defaults",
            output: `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content || {})}` }
        },
      },
      {
        id: "test_elicitation_sep1330_enums",
        description: "Asks for every kind of choice.",
        parameters: { type: "object", properties: {} },
        execute: async (args, ctx) => {
          const answer = await ctx.ask({ message: "Pick some options", schema: {
            type: "object",
            properties: {
              untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
              titledSingle: { type: "string", oneOf: [
                { const: "value1", title: "First Option" }, { const: "value2", title: "Second Option" },
                { const: "value3", title: "Third Option" }] },
              legacyEnum: { type: "string", enum: ["opt1", "opt2", "opt3"], enumNames: ["Option One", "Option Two", "Option Three"] },
              untitledMulti: { type: "array", items: { type: "string", enum: ["option1", "option2", "option3"] } },
              titledMulti: { type: "array", items: { anyOf: [
                { const: "value1", title: "First Choice" }, { const: "value2", title: "Second Choice" },
                { const: "value3", title: "Third Choice" }] } },
            },
          } })
          return { title: "test_elicitation_sep1330_enums",
            output: `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content || {})}` }
        },
      },
      {
        id: "test_error_handling",
        description: "Always fails.",
        parameters: { type: "object", properties: {} },
        execute: () => { throw new Error("This tool intentionally returns an error for testing") },
      },
      {
        id: "test_tool_with_logging",
        description: "Logs three lines as it runs.",
        parameters: { type: "object", properties: {} },
        execute: async (args, ctx) => {
          ctx.log("info", "Tool execution started")
          await new Promise((resolve) => setTimeout(resolve, 50))
          ctx.log("info", "Tool processing data")
          await new Promise((resolve) => setTimeout(resolve, 50))
          ctx.log("info", "Tool execution completed")
          return { title: "test_tool_with_logging", output: "Logging test completed" }
        },
      },
      {
        // Reports 0, 50 and 100 of 100; 300 ms apart, as Podcode passes
        // on at most four reports a second.
        id: "test_tool_with_progress",
        description: "Reports its progress in three steps.",
        parameters: { type: "object", properties: {} },
        execute: async (args, ctx) => {
          for (const n of [0, 50, 100]) {
            ctx.progress({ progress: n, total: 100, message: `step ${n}` })
            if (n < 100) await new Promise((resolve) => setTimeout(resolve, 300))
          }
          return { title: "test_tool_with_progress", output: "Progress test completed" }
        },
      },
      {
        // Outlasts the server's mcp_poll_after_ms (the test's user config
        // sets 500 ms), so its stream is closed with retry: and resumed.
        id: "test_reconnection",
        description: "Takes two seconds.",
        parameters: { type: "object", properties: {} },
        execute: async () => {
          await new Promise((resolve) => setTimeout(resolve, 2000))
          return { title: "test_reconnection", output: "Reconnection test completed successfully" }
        },
      },
      {
        id: "json_schema_2020_12_tool",
        description: "Tool with JSON Schema 2020-12 features",
        parameters: {
          $schema: "https://json-schema.org/draft/2020-12/schema",
          type: "object",
          $defs: {
            address: { type: "object", properties: { street: { type: "string" }, city: { type: "string" } } },
          },
          properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
          additionalProperties: false,
        },
        execute: (args) => ({ title: "json_schema_2020_12_tool", output: JSON.stringify(args) }),
      },
    ],
  }),
}
