package llm

import (
	"encoding/json"
	"strings"
	"testing"
)

// The chat completions API refuses image parts in a tool message: a tool
// result's images are left out there (Ollama's API takes them), a user
// message's are sent.
func TestOpenAIToolMessageImages(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n0000")
	msgs := oaMessages([]Message{
		{Role: RoleUser, Content: "look", Images: [][]byte{png}},
		{Role: RoleTool, Content: "chart [image: image/png, 12 bytes]", ToolCallID: "c1", Images: [][]byte{png}},
	})
	b, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	if strings.Count(got, `"type":"image_url"`) != 1 || !strings.Contains(got, `"content":"chart [image: image/png, 12 bytes]"`) {
		t.Errorf("messages: %s", got)
	}
}
