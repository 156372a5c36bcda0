package tool

import (
	"context"
	"encoding/json"
)

// Kind classifies what a tool does; policy modes and risk levels use it.
type Kind string

const (
	KindRead    Kind = "read"    // reads files or state, changes nothing
	KindSearch  Kind = "search"  // searches files or the web, changes nothing
	KindEdit    Kind = "edit"    // writes or edits files
	KindDelete  Kind = "delete"  // removes files or state
	KindExecute Kind = "execute" // runs commands
	KindFetch   Kind = "fetch"   // network access
	KindThink   Kind = "think"   // memory, todos: the agent's own notes
	KindOther   Kind = "other"   // unknown (e.g. an MCP tool without hints)
)

// ReadOnly reports whether calls of this kind change nothing on the machine.
func (k Kind) ReadOnly() bool { return k == KindRead || k == KindSearch || k == KindFetch }

// Risk is a tool call's risk level.
type Risk string

const (
	RiskLow    Risk = "low"
	RiskMedium Risk = "medium"
	RiskHigh   Risk = "high"
)

// Schema is the internal tool parameter schema: the subset of JSON Schema
// that model providers understand. $ref is resolved before a Schema is
// built, so a Schema is a finite tree.
type Schema struct {
	Type                 string             `json:"type,omitempty"`
	Description          string             `json:"description,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	Items                *Schema            `json:"items,omitempty"`
	Enum                 []any              `json:"enum,omitempty"`
	Default              any                `json:"default,omitempty"`
	Format               string             `json:"format,omitempty"`
	Pattern              string             `json:"pattern,omitempty"`
	Minimum              *float64           `json:"minimum,omitempty"`
	Maximum              *float64           `json:"maximum,omitempty"`
	MinLength            *int               `json:"minLength,omitempty"`
	MaxLength            *int               `json:"maxLength,omitempty"`
	MinItems             *int               `json:"minItems,omitempty"`
	MaxItems             *int               `json:"maxItems,omitempty"`
	AnyOf                []*Schema          `json:"anyOf,omitempty"`
	AdditionalProperties any                `json:"additionalProperties,omitempty"` // bool or *Schema
}

// Tool is something the model can call.
type Tool interface {
	Name() string        // unique in the registry, e.g. "read_file" or "github:create_issue"
	Description() string // model-facing
	Schema() *Schema     // parameters, type "object"
	Kind() Kind
	// Build validates params against the schema and returns an invocation.
	// Validation errors name the parameter.
	Build(params json.RawMessage) (Invocation, error)
}

// Annotated is implemented by tools that carry extra facts for policy and
// display (MCP annotations, the server a tool came from).
type Annotated interface {
	Annotations() Annotations
}

// Annotations are optional facts about a tool.
type Annotations struct {
	Title       string `json:"title,omitempty"`
	ReadOnly    *bool  `json:"readOnly,omitempty"`
	Destructive *bool  `json:"destructive,omitempty"`
	Idempotent  *bool  `json:"idempotent,omitempty"`
	OpenWorld   *bool  `json:"openWorld,omitempty"`
	Server      string `json:"server,omitempty"`    // MCP server name
	Extension   string `json:"extension,omitempty"` // extension that provided it
}

// Invocation is one validated call, ready to run.
type Invocation interface {
	Params() json.RawMessage // the final, validated parameters
	Description() string     // one line for the user, e.g. "Read src/main.go"
	Locations() []string     // paths or URLs it touches
	// Confirmation returns what the user must see to approve the call, or nil
	// when the tool itself never needs confirmation.
	Confirmation() *Confirmation
	// Execute runs the call. out, when not nil, receives streamed output.
	// A refusal the model should see is a Result with Error set; a Go error
	// is for infrastructure failures.
	Execute(ctx context.Context, out func(Chunk)) (Result, error)
}

// Chunk is streamed output or progress.
type Chunk struct {
	Text     string  `json:"text,omitempty"`
	Progress float64 `json:"progress,omitempty"` // done so far
	Total    float64 `json:"total,omitempty"`    // 0 when unknown
	Message  string  `json:"message,omitempty"`
	// Agent names the subagent whose activity this is (the Task tool's
	// progress), "outer/inner" when one delegated to another.
	Agent string `json:"agent,omitempty"`
}

// Confirmation is what an "ask" shows the user.
type Confirmation struct {
	Title     string          `json:"title"`
	Kind      Kind            `json:"kind"`
	Risk      Risk            `json:"risk"`
	Locations []string        `json:"locations,omitempty"`
	Params    json.RawMessage `json:"params"`
	Diff      string          `json:"diff,omitempty"` // unified diff for edits
	Command   string          `json:"command,omitempty"`
	// Trust is set when the call writes a file that decides what runs
	// (store.TrustPath): what the file decides, e.g. ".git/config belongs
	// to git: git runs ...". The gate then asks a person about this exact
	// call in every mode and under every allow rule, offers no "always",
	// and refuses it when no one can answer.
	Trust string `json:"trust,omitempty"`
}

// Result is the outcome of a call.
type Result struct {
	ForModel string   `json:"forModel"`        // what the model gets
	Display  string   `json:"display"`         // what the user sees
	Error    *Error   `json:"error,omitempty"` // set when the call failed
	Data     any      `json:"data,omitempty"`  // structured content, if any
	Files    []string `json:"files,omitempty"` // files written, for on_file_change
	// Images go to the model with ForModel (Ollama's images on the tool
	// message); raw bytes, PNG, JPEG, ...
	Images [][]byte `json:"-"`
}

// ErrorKind types tool errors.
type ErrorKind string

const (
	ErrInvalidParams ErrorKind = "invalid_params"
	ErrNotFound      ErrorKind = "not_found"
	ErrExists        ErrorKind = "already_exists"
	ErrTooLarge      ErrorKind = "too_large"
	ErrNetwork       ErrorKind = "network"
	ErrPermission    ErrorKind = "permission"
	ErrOutsideRoot   ErrorKind = "outside_workspace"
	ErrTimeout       ErrorKind = "timeout"
	ErrCancelled     ErrorKind = "cancelled"
	ErrExec          ErrorKind = "execution"
	ErrPolicy        ErrorKind = "policy"
	ErrUnavailable   ErrorKind = "unavailable"
)

// Error is a typed tool error.
type Error struct {
	Kind    ErrorKind `json:"kind"`
	Message string    `json:"message"`
}

func (e *Error) Error() string { return string(e.Kind) + ": " + e.Message }
