package fantasycmp

// The answer every request gets, in each API's stream: a text of three
// deltas, then a call of read (its arguments in three pieces where the
// API splits them).
const (
	AnswerText = "I found it. Reading the opener next."
	AnswerArgs = `{"path":"internal/store/open.go","offset":1,"limit":400}`
)

// AnthropicStream is the answer as the Messages API's server-sent events.
var AnthropicStream = sse(
	"message_start", `{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":120,"cache_creation_input_tokens":1800,"cache_read_input_tokens":41000,"output_tokens":1}}}`,
	"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
	"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"I found it."}}`,
	"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" Reading the"}}`,
	"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" opener next."}}`,
	"content_block_stop", `{"type":"content_block_stop","index":0}`,
	"content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_answer","name":"read","input":{}}}`,
	"content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"path\":\"internal/st"}}`,
	"content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"ore/open.go\",\"offset\":"}}`,
	"content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"1,\"limit\":400}"}}`,
	"content_block_stop", `{"type":"content_block_stop","index":1}`,
	"message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":58}}`,
	"message_stop", `{"type":"message_stop"}`,
)

// AnthropicEmpty is the shortest complete answer: no content at all.
var AnthropicEmpty = sse(
	"message_start", `{"type":"message_start","message":{"id":"msg_02","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":120,"output_tokens":1}}}`,
	"message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":1}}`,
	"message_stop", `{"type":"message_stop"}`,
)

// AnthropicAnswer is what AnthropicStream parses into.
var AnthropicAnswer = Answer{Text: AnswerText, CallID: "toolu_answer", CallTool: "read", CallArgs: AnswerArgs}

// ResponsesStream is the answer as the Responses API streams it: the
// message item and its text deltas, the function call item and its
// arguments in three pieces, response.completed with the usage. (The API
// also echoes the request's instructions and tools in response.created
// and response.completed; left out here.)
var ResponsesStream = sse(
	"response.created", `{"type":"response.created","sequence_number":0,"response":{"id":"resp_01","object":"response","created_at":1760000000,"status":"in_progress","model":"gpt-4.1","output":[],"usage":null}}`,
	"response.output_item.added", `{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"msg_01","type":"message","status":"in_progress","role":"assistant","content":[]}}`,
	"response.content_part.added", `{"type":"response.content_part.added","sequence_number":2,"item_id":"msg_01","output_index":0,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}`,
	"response.output_text.delta", `{"type":"response.output_text.delta","sequence_number":3,"item_id":"msg_01","output_index":0,"content_index":0,"delta":"I found it."}`,
	"response.output_text.delta", `{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_01","output_index":0,"content_index":0,"delta":" Reading the"}`,
	"response.output_text.delta", `{"type":"response.output_text.delta","sequence_number":5,"item_id":"msg_01","output_index":0,"content_index":0,"delta":" opener next."}`,
	"response.output_text.done", `{"type":"response.output_text.done","sequence_number":6,"item_id":"msg_01","output_index":0,"content_index":0,"text":"I found it. Reading the opener next."}`,
	"response.content_part.done", `{"type":"response.content_part.done","sequence_number":7,"item_id":"msg_01","output_index":0,"content_index":0,"part":{"type":"output_text","text":"I found it. Reading the opener next.","annotations":[]}}`,
	"response.output_item.done", `{"type":"response.output_item.done","sequence_number":8,"output_index":0,"item":{"id":"msg_01","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"I found it. Reading the opener next.","annotations":[]}]}}`,
	"response.output_item.added", `{"type":"response.output_item.added","sequence_number":9,"output_index":1,"item":{"id":"fc_01","type":"function_call","status":"in_progress","call_id":"call_answer","name":"read","arguments":""}}`,
	"response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","sequence_number":10,"item_id":"fc_01","output_index":1,"delta":"{\"path\":\"internal/st"}`,
	"response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","sequence_number":11,"item_id":"fc_01","output_index":1,"delta":"ore/open.go\",\"offset\":"}`,
	"response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","sequence_number":12,"item_id":"fc_01","output_index":1,"delta":"1,\"limit\":400}"}`,
	"response.function_call_arguments.done", `{"type":"response.function_call_arguments.done","sequence_number":13,"item_id":"fc_01","output_index":1,"arguments":"{\"path\":\"internal/store/open.go\",\"offset\":1,\"limit\":400}"}`,
	"response.output_item.done", `{"type":"response.output_item.done","sequence_number":14,"output_index":1,"item":{"id":"fc_01","type":"function_call","status":"completed","call_id":"call_answer","name":"read","arguments":"{\"path\":\"internal/store/open.go\",\"offset\":1,\"limit\":400}"}}`,
	"response.completed", `{"type":"response.completed","sequence_number":15,"response":{"id":"resp_01","object":"response","created_at":1760000000,"status":"completed","model":"gpt-4.1","output":[{"id":"msg_01","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"I found it. Reading the opener next.","annotations":[]}]},{"id":"fc_01","type":"function_call","status":"completed","call_id":"call_answer","name":"read","arguments":"{\"path\":\"internal/store/open.go\",\"offset\":1,\"limit\":400}"}],"usage":{"input_tokens":42920,"input_tokens_details":{"cached_tokens":41000},"output_tokens":58,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":42978}}}`,
)

// ResponsesEmpty is a complete response with no output.
var ResponsesEmpty = sse(
	"response.created", `{"type":"response.created","sequence_number":0,"response":{"id":"resp_02","object":"response","created_at":1760000000,"status":"in_progress","model":"gpt-4.1","output":[],"usage":null}}`,
	"response.completed", `{"type":"response.completed","sequence_number":1,"response":{"id":"resp_02","object":"response","created_at":1760000000,"status":"completed","model":"gpt-4.1","output":[],"usage":{"input_tokens":42920,"input_tokens_details":{"cached_tokens":41000},"output_tokens":1,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":42921}}}`,
)

// ResponsesAnswer is what ResponsesStream parses into.
var ResponsesAnswer = Answer{Text: AnswerText, CallID: "call_answer", CallTool: "read", CallArgs: AnswerArgs}

// GeminiStream is the answer as streamGenerateContent?alt=sse streams it:
// three chunks of text, then one with the whole function call (Gemini
// does not split a call's arguments, nor give the call an ID) and the
// finish reason.
var GeminiStream = sse(
	"", `{"candidates":[{"content":{"parts":[{"text":"I found it."}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":42920,"totalTokenCount":42920,"cachedContentTokenCount":41000},"modelVersion":"gemini-2.5-flash","responseId":"resp_01"}`,
	"", `{"candidates":[{"content":{"parts":[{"text":" Reading the"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":42920,"totalTokenCount":42920,"cachedContentTokenCount":41000},"modelVersion":"gemini-2.5-flash","responseId":"resp_01"}`,
	"", `{"candidates":[{"content":{"parts":[{"text":" opener next."}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":42920,"totalTokenCount":42920,"cachedContentTokenCount":41000},"modelVersion":"gemini-2.5-flash","responseId":"resp_01"}`,
	"", `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"read","args":{"path":"internal/store/open.go","offset":1,"limit":400}}}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":42920,"candidatesTokenCount":58,"totalTokenCount":42978,"cachedContentTokenCount":41000},"modelVersion":"gemini-2.5-flash","responseId":"resp_01"}`,
)

// GeminiEmpty is a complete answer with no content.
var GeminiEmpty = sse(
	"", `{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":42920,"candidatesTokenCount":1,"totalTokenCount":42921,"cachedContentTokenCount":41000},"modelVersion":"gemini-2.5-flash","responseId":"resp_02"}`,
)

// GeminiAnswer is what GeminiStream parses into.
var GeminiAnswer = Answer{Text: AnswerText, CallID: AnyID, CallTool: "read", CallArgs: AnswerArgs}

// ResponsesCounts are strings that a Responses request body of the step
// holds as often as they say (CheckSides).
var ResponsesCounts = map[string]int{`"function_call"`: Pairs, `"function_call_output"`: Pairs, `"parameters"`: 10}
