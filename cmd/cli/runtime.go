package cli

import (
	"context"

	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/core/runtime"
	"github.com/ollm/ollm/profiles"
	"github.com/ollm/ollm/schema"
)

// NewRuntime wires core/runtime to this invocation: OLLM_HOME and the
// workspace, the current generation as its source (LoadProfile), the
// process environment, OAuth for MCP servers with this command's terminal,
// and "always" answers saved into the user profile. The runtime itself
// never reads CUE.
func (f *Factory) NewRuntime(ctx context.Context, o runtime.Options) (*runtime.Runtime, error) {
	home, err := f.Home()
	if err != nil {
		return nil, err
	}
	ws, err := f.Workspace()
	if err != nil {
		return nil, err
	}
	o.Home, o.Workspace, o.Source = home, ws, generationSource{f}
	o.Getenv, o.Environ = f.Getenv, f.Environ
	o.Version = Version
	o.Verbose = f.Global.Verbose
	o.MCPAuth = func(mo *mcp.Options) { mcpAuth(mo, home, f.IO) }
	o.SaveRules = profiles.AddPolicyRules
	return runtime.New(ctx, o)
}

// generationSource gives the runtime the workspace's current generation,
// applying a changed profile first when profile.autoApply says so.
type generationSource struct{ f *Factory }

func (s generationSource) Load() (*schema.Resolved, error)        { return s.f.LoadProfile() }
func (s generationSource) LoadUngated() (*schema.Resolved, error) { return s.f.LoadUngated() }
