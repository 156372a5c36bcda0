package claudeagent

import (
	"errors"
	"strings"
)

// value is a front matter value: a scalar, or a list ("- item" lines or
// [a, b]).
type value struct {
	text  string
	items []string
	list  bool
}

func scalar(v value) string {
	if v.list {
		return strings.Join(v.items, ", ")
	}
	return v.text
}

// list is a value as a list of names: a YAML list, or a comma- or
// blank-separated string ("Read, Grep, Glob").
func list(v value) []string {
	if v.list {
		return v.items
	}
	var out []string
	for _, f := range strings.FieldsFunc(v.text, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		out = append(out, f)
	}
	return out
}

// frontMatter splits "---\n...\n---\nbody" into its top-level keys (in
// file order) and the body. Values run to the end of their line; a
// "|" or ">" block and indented continuation lines join them; "- item"
// lines under a key make a list.
func frontMatter(s string) (map[string]value, []string, string, error) {
	s = strings.ReplaceAll(strings.TrimPrefix(s, "\ufeff"), "\r\n", "\n")
	if !strings.HasPrefix(s, "---\n") {
		return nil, nil, "", errors.New("no front matter: an agent file starts with ---, then name:, description:, and --- before the prompt")
	}
	rest := s[4:]
	end := strings.Index(rest, "\n---")
	if strings.HasPrefix(rest, "---") {
		end = -1
	}
	if end < 0 {
		return nil, nil, "", errors.New("the front matter has no closing ---")
	}
	head, body := rest[:end], rest[end+4:]
	if i := strings.IndexByte(body, '\n'); i >= 0 {
		body = body[i+1:]
	} else {
		body = ""
	}
	meta := map[string]value{}
	var order []string
	var key string
	var block bool // a | or > block: continuation lines are kept as lines
	for _, l := range strings.Split(head, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			if block && key != "" {
				v := meta[key]
				v.text += "\n"
				meta[key] = v
			}
			continue
		}
		indented := l[0] == ' ' || l[0] == '\t'
		if indented && key != "" {
			v := meta[key]
			switch {
			case strings.HasPrefix(t, "- ") || t == "-":
				v.list = true
				v.items = append(v.items, unquote(strings.TrimSpace(strings.TrimPrefix(t, "-"))))
			case block:
				v.text += t + "\n"
			default:
				v.text = strings.TrimSpace(v.text + " " + t)
			}
			meta[key] = v
			continue
		}
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		key, block = strings.TrimSpace(k), false
		v = strings.TrimSpace(v)
		if _, dup := meta[key]; !dup {
			order = append(order, key)
		}
		switch {
		case v == "|" || v == ">" || v == "|-" || v == ">-":
			block = true
			meta[key] = value{}
		case strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]"):
			var items []string
			for _, it := range strings.Split(v[1:len(v)-1], ",") {
				if it = unquote(strings.TrimSpace(it)); it != "" {
					items = append(items, it)
				}
			}
			meta[key] = value{items: items, list: true}
		default:
			meta[key] = value{text: unquote(v)}
		}
	}
	return meta, order, body, nil
}

// unquote removes the quotes of a quoted scalar and reads the escapes a
// double-quoted one may hold (\n, \", \\).
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	}
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return strings.NewReplacer(`\n`, "\n", `\"`, `"`, `\\`, `\`, `\t`, "\t").Replace(s[1 : len(s)-1])
	}
	return s
}
