package llm

import (
	"context"
	"errors"
	"net"
	"syscall"

	"github.com/ollm/ollm/internal/secrets"
)

// ErrorKind classifies a provider failure so the caller can react to it
// (compact on ErrContextOverflow, stop the session on ErrUnreachable, ...).
type ErrorKind string

const (
	ErrUnreachable     ErrorKind = "unreachable"      // nothing answers at the endpoint
	ErrModelMissing    ErrorKind = "model_missing"    // the server does not have the model
	ErrAuth            ErrorKind = "auth"             // API key missing or refused
	ErrContextOverflow ErrorKind = "context_overflow" // the conversation does not fit
	ErrRejected        ErrorKind = "rejected"         // any other 4xx: the request was wrong
	ErrServer          ErrorKind = "server"           // 5xx or an error inside the stream
	ErrIncomplete      ErrorKind = "incomplete"       // the stream ended before the reply did
	ErrConfig          ErrorKind = "config"           // the profile's model section is unusable
	ErrCancelled       ErrorKind = "cancelled"        // ctx ended; errors.Is(err, context.Canceled) holds
)

// Error is a provider failure. Its message says what failed, where (the
// endpoint and the model) and what to do next.
type Error struct {
	Kind     ErrorKind
	Provider string // "ollama" | "openai"
	Endpoint string
	Model    string
	Status   int // HTTP status, 0 when there was no response
	Message  string
	Err      error // the underlying error, if any
}

func (e *Error) Error() string { return e.Message }

// scrub hides secrets in err's message before it leaves a provider: the
// known values (the API key sent, the endpoint's password and key-like
// query values) wherever a server echoed them, and the credentials of any
// URL. Endpoint is shown the same way.
func scrub(err error, known []string) error {
	var e *Error
	if errors.As(err, &e) {
		e.Message = secrets.Scrub(e.Message, known)
		e.Endpoint = secrets.Scrub(e.Endpoint, known)
	}
	return err
}
func (e *Error) Unwrap() error { return e.Err }

// IsKind reports whether err is an *Error of kind k.
func IsKind(err error, k ErrorKind) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == k
}

// isRefused reports whether err means no server listens at the address:
// connection refused, or a dial that failed for another network reason.
func isRefused(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

// cancelled wraps ctx's error with where the chat stopped, or returns nil
// when ctx is still live.
func cancelled(ctx context.Context, provider, endpoint, model string) error {
	if ctx.Err() == nil {
		return nil
	}
	return &Error{
		Kind: ErrCancelled, Provider: provider, Endpoint: endpoint, Model: model,
		Message: "chat with " + model + " at " + endpoint + " stopped: " + context.Cause(ctx).Error(),
		Err:     ctx.Err(),
	}
}
