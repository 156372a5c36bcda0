package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"

	"github.com/ollm/ollm/internal/secrets"
)

// ModelLister is a provider that can list the models its server offers
// (Ollama's /api/tags, an OpenAI-compatible server's /v1/models): what an
// editor's model selector shows.
type ModelLister interface {
	ListModels(ctx context.Context) ([]string, error)
}

// ListModels lists the models installed in Ollama, sorted by name.
func (o *Ollama) ListModels(ctx context.Context) ([]string, error) {
	resp, err := o.client.List(ctx)
	if err != nil {
		return nil, scrub(o.fail("", err), o.known)
	}
	out := make([]string, 0, len(resp.Models))
	for _, m := range resp.Models {
		out = append(out, m.Name)
	}
	sort.Strings(out)
	return out, nil
}

// ListModels lists the server's /v1/models, sorted by id.
func (p *OpenAI) ListModels(ctx context.Context) ([]string, error) {
	out, err := p.listModels(ctx)
	return out, scrub(err, p.known)
}

func (p *OpenAI) listModels(ctx context.Context) ([]string, error) {
	url := siblingURL(p.url, "models")
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	if p.apiKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+p.apiKey)
	}
	resp, err := p.http.Do(hreq)
	if err != nil {
		return nil, p.transportError(ctx, "", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &Error{Provider: "openai", Endpoint: p.endpoint, Status: resp.StatusCode,
			Message: fmt.Sprintf("listing the models of %s failed (HTTP %d for %s)", p.endpoint, resp.StatusCode, secrets.RedactURLs(url))}
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 4<<20)).Decode(&list); err != nil {
		return nil, &Error{Provider: "openai", Endpoint: p.endpoint, Err: err,
			Message: fmt.Sprintf("the model list of %s (%s) is not JSON: %v", p.endpoint, secrets.RedactURLs(url), err)}
	}
	out := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		if m.ID != "" {
			out = append(out, m.ID)
		}
	}
	sort.Strings(out)
	return out, nil
}
