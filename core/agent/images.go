package agent

import "context"

// RunWithImages is Run with images attached to the prompt (the user
// message's Images: Ollama's `images`, OpenAI's image_url parts), for a
// model that sees them (`ollm acp` with an editor's image blocks). The
// caller decides whether the model takes images.
func (s *Session) RunWithImages(ctx context.Context, prompt string, images [][]byte) (Reply, error) {
	return s.run(ctx, prompt, images)
}
