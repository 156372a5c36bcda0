package acp

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"

	sdk "github.com/coder/acp-go-sdk"
)

// promptImages are the prompt's image blocks, decoded, for a model that
// sees: both of ollm's providers carry images on the user message
// (Ollama's `images`, OpenAI's image_url parts), so promptCapabilities
// advertises them; a model Ollama lists without the "vision" capability
// gets the text only, and the editor is told.
func (s *session) promptImages(ctx context.Context, blocks []sdk.ContentBlock) [][]byte {
	var out [][]byte
	for _, c := range blocks {
		if c.Image == nil {
			continue
		}
		b, err := base64.StdEncoding.DecodeString(c.Image.Data)
		if err != nil {
			s.notice(fmt.Sprintf("an image (%s) was not sent: its data is not base64: %v", c.Image.MimeType, err))
			continue
		}
		out = append(out, b)
	}
	if len(out) == 0 {
		return nil
	}
	m, p := s.rt.Model()
	if info, err := p.ModelInfo(ctx, m.Name); err == nil && len(info.Capabilities) > 0 && !slices.Contains(info.Capabilities, "vision") {
		s.notice(fmt.Sprintf("model %s does not take images (no vision capability); the %d image(s) were not sent, only the text", m.Name, len(out)))
		return nil
	}
	return out
}

// replayImages shows a loaded prompt's images as the user's.
func (s *session) replayImages(images [][]byte) {
	for _, img := range images {
		s.update(sdk.UpdateUserMessage(sdk.ImageBlock(base64.StdEncoding.EncodeToString(img), http.DetectContentType(img))))
	}
}
