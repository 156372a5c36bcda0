package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ollm/ollm/core/mcp"
)

func newCmdMCPResources(f *Factory) *cobra.Command {
	o := newMCPOptions(f)
	cmd := &cobra.Command{
		Use:   "resources [server]",
		Short: "List the resources of the MCP servers",
		Long: `List the resources and resource templates the ready MCP servers offer:
the server, the URI (or the URI template), the name, the MIME type and
the description. With a server, only that server is started. Read one
with ` + "`ollm mcp read <server> <uri>`" + `.`,
		Example: `  ollm mcp resources
  ollm mcp resources everything --json`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			server := ""
			if len(args) == 1 {
				server, o.Only = args[0], args[0]
			}
			return mcpResourcesRun(o, server)
		},
	}
	addMCPFlags(cmd, o)
	return cmd
}

func mcpResourcesRun(o *MCPOptions, server string) error {
	m, err := startMCP(o)
	if err != nil {
		return err
	}
	defer m.Close()
	if err := checkServer(m, o, server); err != nil {
		return err
	}
	rs, errs := m.ListResources(o.Context, serverArg(o, server))
	if rs == nil {
		rs = []mcp.Resource{}
	}
	if o.JSON {
		if err := writeJSON(o.IO.Out, rs); err != nil {
			return err
		}
	} else {
		w := tabwriter.NewWriter(o.IO.Out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "SERVER\tURI\tNAME\tMIME\tDESCRIPTION")
		for _, r := range rs {
			uri := r.URI
			if uri == "" {
				uri = r.URITemplate + " (template)"
			}
			desc, _, _ := strings.Cut(r.Description, "\n")
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", r.Server, uri, r.Name, r.MIMEType, desc)
		}
		w.Flush()
	}
	return joinErrors(errs, unreadyError(m, ""))
}

func newCmdMCPRead(f *Factory) *cobra.Command {
	o := newMCPOptions(f)
	cmd := &cobra.Command{
		Use:   "read <server> <uri>",
		Short: "Read a resource of an MCP server",
		Long: `Read one resource of one MCP server (only that server is started). Text
contents are printed as they are; binary contents are named with their
MIME type and size on stderr. --json prints the contents whole, as the
server sent them: text as text, binary as base64 (blob). With --url or
--command there is no server argument: ollm mcp read --url URL <uri>.`,
		Example: `  ollm mcp read everything demo://resource/static/document/architecture.md
  ollm mcp read everything demo://resource/static/document/architecture.md --json | jq -r '.contents[0].text'`,
		Args: rangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			server := adHocName
			if !o.adHoc() {
				if len(args) != 2 {
					return &FlagError{Err: errors.New("give the server and the URI: ollm mcp read <server> <uri>")}
				}
				server, args = args[0], args[1:]
			} else if len(args) != 1 {
				return &FlagError{Err: errors.New("give the URI: ollm mcp read --url URL <uri>")}
			}
			o.Only = server
			return mcpReadRun(o, server, args[0])
		},
	}
	addMCPFlags(cmd, o)
	return cmd
}

func mcpReadRun(o *MCPOptions, server, uri string) error {
	m, err := startMCP(o)
	if err != nil {
		return err
	}
	defer m.Close()
	if err := checkServer(m, o, server); err != nil {
		return err
	}
	rc, err := m.ReadContents(o.Context, server, uri)
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(o.IO.Out, rc)
	}
	for _, raw := range rc.Contents {
		var part struct {
			URI      string  `json:"uri"`
			MIMEType string  `json:"mimeType"`
			Text     *string `json:"text"`
			Blob     string  `json:"blob"`
		}
		if err := json.Unmarshal(raw, &part); err != nil {
			return err
		}
		if part.Text != nil {
			fmt.Fprint(o.IO.Out, *part.Text)
			if !strings.HasSuffix(*part.Text, "\n") {
				fmt.Fprintln(o.IO.Out)
			}
			continue
		}
		mime := part.MIMEType
		if mime == "" {
			mime = "unknown type"
		}
		fmt.Fprintf(o.IO.ErrOut, "%s: binary contents (%s, %d bytes of base64); --json prints them\n", part.URI, mime, len(part.Blob))
	}
	return nil
}

func newCmdMCPPrompts(f *Factory) *cobra.Command {
	o := newMCPOptions(f)
	cmd := &cobra.Command{
		Use:   "prompts [server]",
		Short: "List the prompts of the MCP servers",
		Long: `List the prompts the ready MCP servers offer, with their arguments
(required ones marked *) and descriptions. In a session each prompt is a
skill named <server>:<prompt>. With a server, only that server is started.`,
		Example: `  ollm mcp prompts
  ollm mcp prompts everything --json`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			server := ""
			if len(args) == 1 {
				server, o.Only = args[0], args[0]
			}
			return mcpPromptsRun(o, server)
		},
	}
	addMCPFlags(cmd, o)
	return cmd
}

func mcpPromptsRun(o *MCPOptions, server string) error {
	m, err := startMCP(o)
	if err != nil {
		return err
	}
	defer m.Close()
	if err := checkServer(m, o, server); err != nil {
		return err
	}
	ps, errs := m.ListPrompts(o.Context, serverArg(o, server))
	if ps == nil {
		ps = []mcp.Prompt{}
	}
	if o.JSON {
		if err := writeJSON(o.IO.Out, ps); err != nil {
			return err
		}
	} else {
		w := tabwriter.NewWriter(o.IO.Out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "SERVER\tPROMPT\tARGUMENTS\tDESCRIPTION")
		for _, p := range ps {
			var args []string
			for _, a := range p.Arguments {
				if a.Required {
					args = append(args, a.Name+"*")
				} else {
					args = append(args, a.Name)
				}
			}
			desc, _, _ := strings.Cut(p.Description, "\n")
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", p.Server, p.Name, strings.Join(args, ","), desc)
		}
		w.Flush()
	}
	return joinErrors(errs, unreadyError(m, ""))
}

// serverArg is the server a listing is about: the ad-hoc one, the one
// named, or "" for all.
func serverArg(o *MCPOptions, server string) string {
	if o.adHoc() {
		return adHocName
	}
	return server
}

// checkServer refuses a server name the profile does not declare, and
// says why a named server that is not ready cannot be asked.
func checkServer(m *mcp.Manager, o *MCPOptions, server string) error {
	server = serverArg(o, server)
	if server == "" {
		return nil
	}
	for _, s := range m.Status() {
		if s.Name == server {
			if s.State != mcp.StateReady {
				return fmt.Errorf("MCP server %q is %s: %s", server, s.State, s.Error)
			}
			return nil
		}
	}
	return &FlagError{Err: fmt.Errorf("no MCP server %q; `ollm mcp list` shows them", server)}
}

// joinErrors reports what could not be listed, after what could.
func joinErrors(errs []error, more error) error {
	if more != nil {
		errs = append(errs, more)
	}
	if len(errs) == 0 {
		return nil
	}
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	return errors.New(strings.Join(msgs, "\n"))
}
