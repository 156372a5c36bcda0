package hooks

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
)

// extImage decodes an image block of an extension's tool_result (seed
// 002: {"type":"image","mime_type":"image/png","data":"<base64>"}). The
// note stands for it in the text, for the user and for a model that
// takes no images; img is nil when the data is not an image in base64.
func extImage(mime, data string) (img []byte, note string) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(data))
	if err != nil || len(b) == 0 {
		return nil, fmt.Sprintf("[image %s not attached: its data is not base64]", mime)
	}
	if sniffed := http.DetectContentType(b); !strings.HasPrefix(sniffed, "image/") {
		return nil, fmt.Sprintf("[image %s not attached: its data is %s, not an image]", mime, sniffed)
	}
	if mime == "" {
		mime = http.DetectContentType(b)
	}
	return b, fmt.Sprintf("[image: %s, %d bytes]", mime, len(b))
}
