package skills

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ollm/ollm/schema"
)

// FileName is the file a folder skill lives in.
const FileName = "SKILL.md"

// LoadDir reads every <dir>/<skill>/SKILL.md (and a SKILL.md directly in
// dir). A missing dir holds no skills. A file without front matter naming
// the skill and describing it is reported, naming the file, and skipped.
func LoadDir(dir, extension string) ([]Skill, []error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, []error{fmt.Errorf("skills directory %s: %w", dir, err)}
	}
	files := []string{}
	if _, err := os.Stat(filepath.Join(dir, FileName)); err == nil {
		files = append(files, filepath.Join(dir, FileName))
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name(), FileName)
		if _, err := os.Stat(p); err == nil {
			files = append(files, p)
		}
	}
	sort.Strings(files)
	var out []Skill
	var errs []error
	for _, f := range files {
		s, err := ReadFile(f)
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

// ReadFile reads one SKILL.md in the Agent Skills format: front matter
// between "---" lines with name and description (and optionally
// arguments, the {placeholder}s the body uses), then the instructions.
func ReadFile(path string) (Skill, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Skill{}, err
	}
	meta, body, err := frontMatter(string(data))
	if err != nil {
		return Skill{}, fmt.Errorf("%s: %w", path, err)
	}
	s := Skill{Name: meta["name"], Description: meta["description"], Prompt: strings.TrimSpace(body), Source: SourceFolder, File: path,
		Kind: KindInstructions, Arguments: argumentList(meta["arguments"])}
	claudeMeta(&s, meta)
	if slug := Slug(s.Name); slug != s.Name {
		s.Title, s.Name = s.Name, slug // "Writing Hookify Rules" is /writing-hookify-rules
	}
	switch {
	case s.Name == "":
		return Skill{}, fmt.Errorf("%s: front matter has no name; add `name: %s`", path, filepath.Base(filepath.Dir(path)))
	case s.Description == "":
		return Skill{}, fmt.Errorf("%s: front matter has no description; add `description: ...`", path)
	case s.Prompt == "":
		return Skill{}, fmt.Errorf("%s: skill %s has an empty prompt; write it below the front matter", path, s.Name)
	}
	return s, nil
}

// argumentList reads arguments: "[a, b]", "a, b" or the "- a" lines of a
// YAML list (joined with commas by frontMatter).
func argumentList(v string) []string {
	v = strings.Trim(strings.TrimSpace(v), "[]")
	var out []string
	for _, a := range strings.Split(v, ",") {
		if a = unquote(strings.TrimSpace(a)); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// frontMatter splits "---\nkey: value\n---\nbody". Values may be quoted;
// a value of "|" or ">" (or none) continues on the indented lines below it
// (a block scalar, or a list whose "- item"s are joined with commas);
// other nested YAML (metadata, allowed-tools) is not needed and ignored.
func frontMatter(text string) (map[string]string, string, error) {
	text = strings.TrimPrefix(text, "\ufeff")
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	if !sc.Scan() || strings.TrimSpace(sc.Text()) != "---" {
		return nil, "", fmt.Errorf("no front matter; start the file with a '---' line, name: and description:, and another '---'")
	}
	meta := map[string]string{}
	line := 1
	var (
		cont  string // the key whose value continues below, or ""
		style string // "|", ">" or "" (a list or plain continuation)
		parts []string
	)
	flush := func() {
		if cont == "" {
			return
		}
		sep := " "
		switch {
		case style == "|":
			sep = "\n"
		case style == "" && len(parts) > 0 && strings.HasPrefix(parts[0], "- "):
			for i, p := range parts {
				parts[i] = strings.TrimSpace(strings.TrimPrefix(p, "- "))
			}
			sep = ", "
		}
		if len(parts) > 0 {
			meta[cont] = strings.Join(parts, sep)
		}
		cont, style, parts = "", "", nil
	}
	for sc.Scan() {
		line++
		l := sc.Text()
		if strings.TrimSpace(l) == "---" {
			flush()
			var body strings.Builder
			for sc.Scan() {
				body.WriteString(sc.Text())
				body.WriteByte('\n')
			}
			return meta, body.String(), sc.Err()
		}
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") || strings.HasPrefix(trimmed, "- ") {
			if cont != "" && trimmed != "" {
				parts = append(parts, trimmed)
			}
			continue
		}
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		flush()
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			return nil, "", fmt.Errorf("line %d: want `key: value` in the front matter", line)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch strings.TrimRight(v, "-+") {
		case "|", ">", "":
			cont, style = k, strings.TrimRight(v, "-+")
			continue
		}
		meta[k] = unquote(v)
	}
	return nil, "", fmt.Errorf("front matter is not closed; add a '---' line after it")
}

func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		return v[1 : len(v)-1]
	}
	return v
}

// Base builds a registry from the profile's skills and the folder skills
// of dirs, in that order of precedence (later wins on the same name): pass
// $OLLM_HOME/skills, then the workspace .ollm/skills. Extensions add
// theirs when they are enabled.
func Base(profile []schema.Skill, dirs ...string) (*Registry, []error) {
	r := New()
	errs := r.AddProfile(profile)
	for _, d := range dirs {
		if d == "" {
			continue
		}
		list, es := LoadDir(d, "")
		errs = append(errs, es...)
		for _, s := range list {
			if err := r.Add(s); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", s.File, err))
			}
		}
	}
	return r, errs
}
