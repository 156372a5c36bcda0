package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// mcpAdHoc runs one mcp subcommand's function against an ad-hoc server
// (--command or --url) with a fresh OLLM_HOME, and returns its stdout.
func mcpAdHoc(t *testing.T, command, url string, json bool, run func(o *MCPOptions) error) (string, string, error) {
	t.Helper()
	home := t.TempDir()
	io, _, out, errOut := TestIO()
	f := &Factory{IO: io, Context: context.Background(), Getenv: func(k string) string {
		if k == "OLLM_HOME" {
			return home
		}
		return ""
	}, Environ: os.Environ, Getwd: os.Getwd, Now: time.Now}
	o := newMCPOptions(f)
	o.Command, o.URL, o.JSON = command, url, json
	err := run(o)
	return out.String(), errOut.String(), err
}

// Resources, templates, prompts and reads of server-everything, over stdio
// and streamable HTTP; --json keeps every content block whole.
func TestMCPResourcesReadPrompts(t *testing.T) {
	for transport, server := range map[string][2]string{
		"stdio": {"node " + everythingScript(t) + " stdio", ""},
		"http":  {"", "http://" + startEverythingHTTP(t) + "/mcp"},
	} {
		t.Run(transport, func(t *testing.T) {
			cmd, url := server[0], server[1]
			out, errOut, err := mcpAdHoc(t, cmd, url, false, func(o *MCPOptions) error { return mcpResourcesRun(o, "") })
			if err != nil || !strings.Contains(out, "adhoc   demo://resource/static/document/architecture.md") ||
				!strings.Contains(out, "demo://resource/dynamic/blob/{resourceId} (template)") {
				t.Fatalf("resources: %v\n%s%s", err, out, errOut)
			}

			out, errOut, err = mcpAdHoc(t, cmd, url, false, func(o *MCPOptions) error { return mcpPromptsRun(o, "") })
			if err != nil || !strings.Contains(out, "args-prompt") || !strings.Contains(out, "city*,state") {
				t.Fatalf("prompts: %v\n%s%s", err, out, errOut)
			}

			out, errOut, err = mcpAdHoc(t, cmd, url, false, func(o *MCPOptions) error {
				return mcpReadRun(o, adHocName, "demo://resource/static/document/architecture.md")
			})
			if err != nil || !strings.HasPrefix(out, "# ") {
				t.Fatalf("read: %v\n%.300s%s", err, out, errOut)
			}

			out, errOut, err = mcpAdHoc(t, cmd, url, true, func(o *MCPOptions) error {
				return mcpReadRun(o, adHocName, "demo://resource/dynamic/blob/7")
			})
			var rc struct {
				Contents []struct {
					URI, MIMEType, Blob string
				}
			}
			if err != nil || json.Unmarshal([]byte(out), &rc) != nil || len(rc.Contents) != 1 || rc.Contents[0].Blob == "" {
				t.Fatalf("read --json: %v\n%s%s", err, out, errOut)
			}
			if _, err := base64.StdEncoding.DecodeString(rc.Contents[0].Blob); err != nil {
				t.Errorf("blob is not base64: %v", err)
			}

			_, errOut, err = mcpAdHoc(t, cmd, url, false, func(o *MCPOptions) error {
				return mcpReadRun(o, adHocName, "demo://resource/dynamic/blob/7")
			})
			if err != nil || !strings.Contains(errOut, "demo://resource/dynamic/blob/7: binary contents (text/plain, 76 bytes of base64); --json prints them") {
				t.Errorf("read of a blob without --json: %v %q", err, errOut)
			}

			out, errOut, err = mcpAdHoc(t, cmd, url, true, func(o *MCPOptions) error { return mcpCallRun(o, adHocName, "get-tiny-image", "{}") })
			var res struct {
				Tool    string
				Content []struct{ Type, Data, MIMEType, Text string }
			}
			if err != nil || json.Unmarshal([]byte(out), &res) != nil || res.Tool != "adhoc:get-tiny-image" || len(res.Content) != 3 {
				t.Fatalf("call --json: %v\n%.500s%s", err, out, errOut)
			}
			img := res.Content[1]
			png, err := base64.StdEncoding.DecodeString(img.Data)
			if img.Type != "image" || img.MIMEType != "image/png" || err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
				t.Errorf("image block %+.80v: %v", img, err)
			}
		})
	}
}

// A tool that must run as a task is called like any other: the status
// messages are progress on stderr, the report is on stdout. The statuses
// are polled (tasks/get), so under load one stage may pass between two
// polls: any working status and the completed one are asserted, not a
// particular stage.
func TestMCPCallTask(t *testing.T) {
	out, errOut, err := mcpAdHoc(t, "node "+everythingScript(t)+" stdio", "", false, func(o *MCPOptions) error {
		return mcpCallRun(o, adHocName, "simulate-research-query", `{"topic":"tasks"}`)
	})
	if err != nil || !strings.Contains(out, "# Research Report: tasks") || !strings.Contains(errOut, "working: ") || !strings.Contains(errOut, "completed: ") {
		t.Fatalf("%v\nstdout %.300s\nstderr %s", err, out, errOut)
	}
}
