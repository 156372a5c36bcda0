// Package llm is how ollm talks to a model. It defines one provider-neutral
// conversation (Request, Message, ToolCall, Event, Response) and two
// providers that speak it: Ollama through github.com/ollama/ollama/api, and
// any server with an OpenAI-compatible /v1/chat/completions endpoint
// through a small hand-written streaming client.
//
// The agent loop sees only Provider: it sends the conversation and the tool
// definitions, receives content, thinking and tool calls as they stream,
// and gets one Response with the whole assistant message, the token counts
// and the reason the model stopped. Errors are *Error values whose Kind
// says what went wrong (server not running, model not installed, bad API
// key, context overflow, stream cut short) and whose message says what to
// do about it, naming the endpoint and the model.
//
// Package llmtest holds scripted fake servers speaking both wire formats,
// so tests of this package and of the agent loop run the real clients over
// real HTTP.
//
// Imports: the standard library, schema, core/tool (for tool definitions)
// and github.com/ollama/ollama/api (only in ollama*.go). It never prints
// and never logs API keys.
package llm
