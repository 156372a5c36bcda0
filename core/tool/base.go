package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
)

// Spec is the static half of a tool: what the model sees. Embed it (or use
// Func) to get Name, Description, Schema, Kind and a validator compiled once.
type Spec struct {
	ToolName    string
	Desc        string
	Params      *Schema
	ToolKind    Kind
	once        sync.Once
	validator   *Validator
	validateErr error
}

func (s *Spec) Name() string        { return s.ToolName }
func (s *Spec) Description() string { return s.Desc }
func (s *Spec) Schema() *Schema     { return s.Params }
func (s *Spec) Kind() Kind          { return s.ToolKind }

// Validate checks raw against the schema (compiled on first use) and
// decodes it into dst, which may be nil.
func (s *Spec) Validate(raw json.RawMessage, dst any) (json.RawMessage, error) {
	s.once.Do(func() { s.validator, s.validateErr = NewValidator(s.ToolName, s.Params) })
	if s.validateErr != nil {
		return nil, s.validateErr
	}
	params, err := s.validator.Validate(raw)
	if err != nil {
		return nil, err
	}
	if dst != nil {
		if err := json.Unmarshal(params, dst); err != nil {
			return nil, &Error{Kind: ErrInvalidParams, Message: fmt.Sprintf("%s: %v", s.ToolName, err)}
		}
	}
	return params, nil
}

// Func is a tool built from a Spec and a function from typed parameters to
// a Call. P is the parameter struct the validated JSON decodes into.
type Func[P any] struct {
	Spec
	New func(p P) (*Call, error)
}

// Build validates params, decodes them into P and asks New for the call.
func (f *Func[P]) Build(params json.RawMessage) (Invocation, error) {
	var p P
	raw, err := f.Validate(params, &p)
	if err != nil {
		return nil, err
	}
	c, err := f.New(p)
	if err != nil {
		return nil, err
	}
	c.params = raw
	if c.Confirm != nil {
		c.Confirm.Params = raw
		if c.Confirm.Kind == "" {
			c.Confirm.Kind = f.ToolKind
		}
		if c.Confirm.Risk == "" {
			c.Confirm.Risk = RiskFor(f.ToolKind)
		}
		if c.Confirm.Locations == nil {
			c.Confirm.Locations = c.Locs
		}
	}
	return c, nil
}

// Call is a ready invocation assembled from plain values.
type Call struct {
	Desc    string
	Locs    []string
	Confirm *Confirmation
	Run     func(ctx context.Context, out func(Chunk)) (Result, error)
	params  json.RawMessage
}

func (c *Call) Params() json.RawMessage     { return c.params }
func (c *Call) Description() string         { return c.Desc }
func (c *Call) Locations() []string         { return c.Locs }
func (c *Call) Confirmation() *Confirmation { return c.Confirm }

// Execute runs the call; a context already done is answered with a
// cancellation result without running anything.
func (c *Call) Execute(ctx context.Context, out func(Chunk)) (Result, error) {
	if err := ctx.Err(); err != nil {
		return CancelledResult(err), nil
	}
	return c.Run(ctx, out)
}

// RiskFor is the default risk of a kind of tool.
func RiskFor(k Kind) Risk {
	switch k {
	case KindRead, KindSearch, KindThink:
		return RiskLow
	case KindEdit, KindFetch:
		return RiskMedium
	default:
		return RiskHigh
	}
}

// Fail builds a Result for a refusal or failure the model should see.
func Fail(kind ErrorKind, format string, args ...any) Result {
	msg := fmt.Sprintf(format, args...)
	return Result{ForModel: "Error (" + string(kind) + "): " + msg, Display: msg, Error: &Error{Kind: kind, Message: msg}}
}

// FromError turns err into a failed Result, keeping its kind when it is an
// *Error and using fallback otherwise.
func FromError(err error, fallback ErrorKind) Result {
	if te, ok := err.(*Error); ok {
		return Fail(te.Kind, "%s", te.Message)
	}
	return Fail(fallback, "%v", err)
}

// CancelledResult is the Result of a call stopped by its context.
func CancelledResult(err error) Result {
	if err == context.DeadlineExceeded {
		return Fail(ErrTimeout, "the call ran out of time: %v", err)
	}
	return Fail(ErrCancelled, "the call was cancelled: %v", err)
}

// OK builds a successful Result that shows the same text to model and user.
func OK(text string) Result { return Result{ForModel: text, Display: text} }
