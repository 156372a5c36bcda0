package tui

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseCommand(t *testing.T) {
	tests := []struct {
		in      string
		want    Command
		wantErr string
	}{
		{in: "hello", want: Command{}},
		{in: "  fix the bug /now", want: Command{}},
		{in: "//etc/hosts is odd", want: Command{}},
		{in: "/", want: Command{}},
		{in: "/help", want: Command{Kind: CmdHelp}},
		{in: "/?", want: Command{Kind: CmdHelp}},
		{in: "  /tools  ", want: Command{Kind: CmdTools}},
		{in: "/mcp", want: Command{Kind: CmdMCP}},
		{in: "/mcp github", want: Command{Kind: CmdMCP, Args: []string{"github"}, Rest: "github"}},
		{in: "/ext", want: Command{Kind: CmdExt}},
		{in: "/skills", want: Command{Kind: CmdSkills}},
		{in: "/reload", want: Command{Kind: CmdReload}},
		{in: "/model", want: Command{Kind: CmdModel}},
		{in: "/model qwen3:8b", want: Command{Kind: CmdModel, Args: []string{"qwen3:8b"}, Rest: "qwen3:8b"}},
		{in: "/clear", want: Command{Kind: CmdClear}},
		{in: "/compact", want: Command{Kind: CmdCompact}},
		{in: "/compact keep the API notes", want: Command{Kind: CmdCompact, Args: []string{"keep", "the", "API", "notes"}, Rest: "keep the API notes"}},
		{in: "/quit", want: Command{Kind: CmdQuit}},
		{in: "/exit", want: Command{Kind: CmdQuit}},
		{in: "/QUIT", want: Command{Kind: CmdQuit}},
		{in: "/review", want: Command{Kind: CmdSkill, Name: "review"}},
		{in: "/review file=a.go  focus=errors", want: Command{Kind: CmdSkill, Name: "review", Args: []string{"file=a.go", "focus=errors"}, Rest: "file=a.go  focus=errors"}},
		{in: "/myext:deploy prod", want: Command{Kind: CmdSkill, Name: "myext:deploy", Args: []string{"prod"}, Rest: "prod"}},
		{in: "/help me", wantErr: "/help takes no arguments"},
		{in: "/clear all", wantErr: "/clear takes no arguments"},
		{in: "/quit now", wantErr: "/quit takes no arguments"},
		{in: "/what?", wantErr: "unknown command /what?"},
		{in: "/ x", wantErr: "empty command"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseCommand(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestPromptText(t *testing.T) {
	for in, want := range map[string]string{"hi": "hi", " //usr/bin ": "/usr/bin", "a\nb": "a\nb"} {
		if got := PromptText(in); got != want {
			t.Errorf("PromptText(%q) = %q, want %q", in, got, want)
		}
	}
}
