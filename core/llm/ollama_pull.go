package llm

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/ollama/ollama/api"
)

// InstalledModel is one model a server offers: Ollama's /api/tags gives
// its size and details, an OpenAI-compatible /v1/models only its name.
type InstalledModel struct {
	Name          string `json:"name"`
	Size          int64  `json:"size,omitempty"` // bytes on disk; 0 unknown
	Family        string `json:"family,omitempty"`
	ParameterSize string `json:"parameterSize,omitempty"` // "8.0B"
	Quantization  string `json:"quantization,omitempty"`  // "Q4_K_M"
}

// PullProgress is one line of Ollama's /api/pull stream: a status
// ("pulling manifest", "pulling <digest>", "verifying sha256 digest",
// "writing manifest", "success") and, while a layer downloads, its bytes
// completed out of total.
type PullProgress struct {
	Status    string `json:"status"`
	Digest    string `json:"digest,omitempty"`
	Total     int64  `json:"total,omitempty"`
	Completed int64  `json:"completed,omitempty"`
}

// Puller is a provider that can download a model (Ollama).
type Puller interface {
	Pull(ctx context.Context, name string, progress func(PullProgress)) error
}

// InstalledModels lists what p's server offers, sorted by name: Ollama's
// /api/tags with sizes and details, otherwise the names of ListModels.
func InstalledModels(ctx context.Context, p Provider) ([]InstalledModel, error) {
	if o, ok := p.(*Ollama); ok {
		return o.Installed(ctx)
	}
	l, ok := p.(ModelLister)
	if !ok {
		return nil, errors.New("this provider cannot list its models")
	}
	names, err := l.ListModels(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]InstalledModel, 0, len(names))
	for _, n := range names {
		out = append(out, InstalledModel{Name: n})
	}
	return out, nil
}

// Installed lists Ollama's installed models (/api/tags) with their size
// and details, sorted by name.
func (o *Ollama) Installed(ctx context.Context) ([]InstalledModel, error) {
	resp, err := o.client.List(ctx)
	if err != nil {
		return nil, scrub(o.fail("", err), o.known)
	}
	out := make([]InstalledModel, 0, len(resp.Models))
	for _, m := range resp.Models {
		out = append(out, InstalledModel{Name: m.Name, Size: m.Size, Family: m.Details.Family,
			ParameterSize: m.Details.ParameterSize, Quantization: m.Details.QuantizationLevel})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// HasModel reports whether name is among list; a name without a tag
// matches its ":latest" as Ollama does.
func HasModel(list []InstalledModel, name string) bool {
	for _, m := range list {
		if m.Name == name || m.Name == withLatest(name) {
			return true
		}
	}
	return false
}

func withLatest(name string) string {
	if name == "" || strings.Contains(name[strings.LastIndex(name, "/")+1:], ":") {
		return name
	}
	return name + ":latest"
}

// Pull downloads name into Ollama (/api/pull, streamed), calling progress
// with each line of the stream; it returns once the server said
// "success", or with the server's error.
func (o *Ollama) Pull(ctx context.Context, name string, progress func(PullProgress)) error {
	ok := false
	err := o.client.Pull(ctx, &api.PullRequest{Model: name}, func(r api.ProgressResponse) error {
		if r.Status == "success" {
			ok = true
		}
		if progress != nil {
			progress(PullProgress{Status: r.Status, Digest: r.Digest, Total: r.Total, Completed: r.Completed})
		}
		return ctx.Err()
	})
	switch {
	case err != nil && isRefused(err):
		return scrub(o.fail(name, err), o.known)
	case err != nil && ctx.Err() != nil:
		return fmt.Errorf("pulling %s from Ollama at %s: cancelled", name, o.endpoint)
	case err != nil:
		return scrub(&Error{Provider: "ollama", Endpoint: o.endpoint, Model: name, Err: err, Kind: ErrRejected,
			Message: fmt.Sprintf("pulling %s into Ollama at %s failed: %s (check the name with `ollm model list` or the Ollama library)", name, o.endpoint, errMessage(err))}, o.known)
	case !ok:
		return fmt.Errorf("pulling %s into Ollama at %s: the stream ended before \"success\"", name, o.endpoint)
	}
	return nil
}

func errMessage(err error) string {
	var se api.StatusError
	if errors.As(err, &se) && se.ErrorMessage != "" {
		return se.ErrorMessage
	}
	return err.Error()
}

// FormatSize is bytes in Ollama's units: "4.9 GB", "640 MB".
func FormatSize(n int64) string {
	const k = 1000
	switch {
	case n >= k*k*k:
		return fmt.Sprintf("%.1f GB", float64(n)/(k*k*k))
	case n >= k*k:
		return fmt.Sprintf("%.0f MB", float64(n)/(k*k))
	case n >= k:
		return fmt.Sprintf("%.0f KB", float64(n)/k)
	}
	return fmt.Sprintf("%d B", n)
}
