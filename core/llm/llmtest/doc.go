// Package llmtest holds scripted fake model servers for tests: an Ollama
// server speaking the /api/chat NDJSON stream (content, thinking and
// tool_calls chunks, then a done chunk with done_reason, token counts and
// durations) plus /api/show, /api/ps, /api/tags and /api/version, and an
// OpenAI-compatible server speaking /v1/chat/completions server-sent events
// with tool-call deltas split across chunks.
//
// No weights can run in tests, so the model is the one thing ollm's tests
// fake; everything else is real. Both fakes are httptest servers on the
// loopback interface, so the providers under test are the real clients
// talking HTTP. A test queues one reply per expected request and reads
// back every request the server received:
//
//	srv := llmtest.NewOllama(t)
//	srv.Reply(llmtest.Text("Reading it."), llmtest.ToolCall("read_file", map[string]any{"path": "a"}))
//	srv.Reply(llmtest.Text("done"))
//	... run the agent against srv.ModelConfig() ...
//	req := srv.LastRequest() // messages, tools, options as sent
//
// A request with no reply queued fails the test; a reply still queued when
// the test ends fails it too.
//
// Imports: the standard library and schema. It must not import core/llm,
// whose tests use it.
package llmtest
