package skills

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// tomlCommand is a Gemini CLI custom command file.
type tomlCommand struct {
	Prompt      *string `toml:"prompt"`
	Description string  `toml:"description"`
}

// LoadCommands reads the Gemini CLI custom commands under dir
// (commands/*.toml, subdirectories included): each is a KindCommand skill
// named by its path, a subdirectory's separator becoming '-' where Gemini
// CLI uses ':' (git/commit.toml is /git-commit, and /git:commit finds it).
// A missing dir holds none; a file that is not valid TOML or has no
// prompt is reported, naming it, and skipped.
func LoadCommands(dir, extension string) ([]Skill, []error) {
	return loadCommands(dir, extension, nil)
}

// LoadProjectCommands reads a workspace's Gemini CLI commands
// (.gemini/commands) like LoadCommands, confined to root: the directory
// and each file must stay inside root once symbolic links are followed;
// a link out of the workspace is reported, naming it, and never read.
func LoadProjectCommands(dir, root string) ([]Skill, []error) {
	if _, err := os.Lstat(dir); os.IsNotExist(err) {
		return nil, nil
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, []error{fmt.Errorf("commands directory %s: %w", dir, err)}
	}
	if !inside(root, real) {
		return nil, []error{fmt.Errorf("commands directory %s leads out of the workspace (to %s); its commands are not read: make it a directory inside %s", dir, real, root)}
	}
	return loadCommands(real, "", func(p string) error {
		rp, err := filepath.EvalSymlinks(p)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if !inside(root, rp) {
			return fmt.Errorf("%s leads out of the workspace (to %s); not read: make it a file inside %s", p, rp, root)
		}
		return nil
	})
}

func loadCommands(dir, extension string, check func(path string) error) ([]Skill, []error) {
	return loadCommandFiles(dir, ".toml", extension, check, readCommand)
}

// loadCommandFiles reads every file under dir whose name ends in suffix
// (Gemini's .toml, Claude Code's .md) with read, in name order; check,
// when set, refuses a file before it is read. A file that fails is an
// error (naming the extension, when there is one) and the rest load.
func loadCommandFiles(dir, suffix, extension string, check func(path string) error, read func(dir, path string) (Skill, error)) ([]Skill, []error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, nil
	}
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, suffix) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, []error{fmt.Errorf("commands directory %s: %w", dir, err)}
	}
	sort.Strings(files)
	var out []Skill
	var errs []error
	for _, f := range files {
		if check != nil {
			if err := check(f); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		s, err := read(dir, f)
		if err != nil {
			if extension != "" {
				err = fmt.Errorf("extension %s: %w", extension, err)
			}
			errs = append(errs, err)
			continue
		}
		s.Extension = extension
		if extension != "" {
			s.Source = SourceExtension
		}
		out = append(out, s)
	}
	return out, errs
}

func readCommand(dir, path string) (Skill, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Skill{}, err
	}
	var c tomlCommand
	if err := toml.Unmarshal(data, &c); err != nil {
		return Skill{}, fmt.Errorf("%s: %w", path, err)
	}
	if c.Prompt == nil || strings.TrimSpace(*c.Prompt) == "" {
		return Skill{}, fmt.Errorf("%s: no prompt; a command needs `prompt = \"...\"`", path)
	}
	rel, _ := filepath.Rel(dir, path)
	gemini := strings.ReplaceAll(strings.TrimSuffix(filepath.ToSlash(rel), ".toml"), "/", ":")
	s := Skill{Name: CommandName(gemini), Description: c.Description, Prompt: *c.Prompt, Source: SourceFolder,
		File: path, Kind: KindCommand}
	if s.Name != gemini {
		s.Title = gemini
	}
	if s.Description == "" {
		s.Description = "Custom command from " + filepath.Base(path)
	}
	return s, nil
}
