package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/schema"
)

// TestDocExamples keeps the examples of docs/*.md true. Fenced blocks are
// checked by their info string (the words after the language, which
// markdown renderers ignore):
//
//	```<lang> file=PATH            written to PATH in the document's scratch
//	                               directory (~/.ollm/ is its OLLM_HOME)
//	```console                     "$ cmd" lines run in that directory, each
//	                               followed by its expected output (stdout
//	                               and stderr); "..." in a line matches any
//	                               text, a line "..." any lines; `echo $?`
//	                               prints the last ollm exit status
//	```cue profile                 validates as a workspace ollm.cue
//	```json manifest               validates as an extension manifest.json
//	```json gemini-manifest        validates as a gemini-extension.json
//	```json lock                   decodes as ollm.lock (no unknown fields)
//	```json hook-input event=E dialect=D    is exactly what ollm sends
//	```json hook-output event=E dialect=D expect=A,B   is read as A and B:
//	    block, continue, message, rewrite:FIELD, extra:FIELD
//
// Blocks run in document order, one scratch directory per document.
func TestDocExamples(t *testing.T) {
	docs, _ := filepath.Glob("../../docs/*.md")
	if len(docs) == 0 {
		t.Fatal("no docs found")
	}
	checked := 0
	for _, doc := range docs {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		blocks := fencedBlocks(string(data))
		t.Run(filepath.Base(doc), func(t *testing.T) {
			s := &docSession{t: t, dir: t.TempDir(), doc: filepath.Base(doc)}
			s.home = filepath.Join(s.dir, ".ollm-home")
			t.Chdir(s.dir) // relative paths in commands (--data rm.json) are the scratch dir's
			for _, b := range blocks {
				if s.check(b) {
					checked++
				}
			}
		})
	}
	if checked == 0 {
		t.Fatal("no checked examples in docs/*.md")
	}
}

type fenced struct {
	line int
	lang string
	tags map[string]string // word -> "" or key -> value
	body string
}

var fenceRE = regexp.MustCompile("^(```+)(.*)$")

// fencedBlocks lists the fenced code blocks of a markdown text.
func fencedBlocks(md string) []fenced {
	var out []fenced
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		m := fenceRE.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		words := strings.Fields(m[2])
		b := fenced{line: i + 1, tags: map[string]string{}}
		if len(words) > 0 {
			b.lang = words[0]
			for _, w := range words[1:] {
				k, v, _ := strings.Cut(w, "=")
				b.tags[k] = v
			}
		}
		var body []string
		for i++; i < len(lines) && lines[i] != m[1]; i++ {
			body = append(body, lines[i])
		}
		b.body = strings.Join(body, "\n") + "\n"
		out = append(out, b)
	}
	return out
}

type docSession struct {
	t        *testing.T
	doc      string
	dir      string
	home     string
	lastExit int
}

func (s *docSession) failf(b fenced, format string, args ...any) {
	s.t.Helper()
	s.t.Errorf("%s:%d: %s", s.doc, b.line, fmt.Sprintf(format, args...))
}

// check runs one block and reports whether it was a checked example.
func (s *docSession) check(b fenced) bool {
	s.t.Helper()
	_, hasFile := b.tags["file"]
	switch {
	case hasFile:
		s.writeFile(b)
	case b.lang == "console":
		s.console(b)
	case has(b, "profile"):
		s.validate(b, "ollm.cue", false)
	case has(b, "manifest"):
		s.validate(b, "manifest.json", true)
	case has(b, "gemini-manifest"):
		s.validate(b, "gemini-extension.json", true)
	case has(b, "lock"):
		dec := json.NewDecoder(strings.NewReader(b.body))
		dec.DisallowUnknownFields()
		var l schema.Lock
		if err := dec.Decode(&l); err != nil || l.Version != schema.LockVersion || l.Comment != schema.LockHeader {
			s.failf(b, "not a current ollm.lock: %v (version %d, header %q)", err, l.Version, l.Comment)
		}
	case has(b, "hook-input"):
		s.hookInput(b)
	case has(b, "hook-output"):
		s.hookOutput(b)
	default:
		return false
	}
	return true
}

func has(b fenced, tag string) bool { _, ok := b.tags[tag]; return ok }

func (s *docSession) path(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/.ollm/"); ok {
		return filepath.Join(s.home, rest)
	}
	return filepath.Join(s.dir, p)
}

func (s *docSession) writeFile(b fenced) {
	p := s.path(b.tags["file"])
	mode := os.FileMode(0o644)
	if strings.HasPrefix(b.body, "#!") {
		mode = 0o755
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(b.body), mode); err != nil {
		s.t.Fatal(err)
	}
}

// factory is an ollm process in the scratch directory.
func (s *docSession) factory(out *bytes.Buffer) *Factory {
	io := &IOStreams{In: strings.NewReader(""), Out: out, ErrOut: out}
	env := map[string]string{"OLLM_HOME": s.home, "HOME": filepath.Join(s.dir, "home")}
	return &Factory{IO: io, Getenv: func(k string) string { return env[k] }, Environ: os.Environ,
		Getwd: func() (string, error) { return s.dir, nil }, Now: time.Now, Context: context.Background()}
}

// console runs "$ cmd" lines and compares their output.
func (s *docSession) console(b fenced) {
	s.t.Helper()
	type step struct {
		cmd  string
		want []string
	}
	var steps []step
	for _, l := range strings.Split(strings.TrimRight(b.body, "\n"), "\n") {
		if c, ok := strings.CutPrefix(l, "$ "); ok {
			steps = append(steps, step{cmd: c})
			continue
		}
		if len(steps) == 0 {
			s.failf(b, "console block must start with a `$ command` line")
			return
		}
		steps[len(steps)-1].want = append(steps[len(steps)-1].want, l)
	}
	for _, st := range steps {
		var out bytes.Buffer
		switch {
		case st.cmd == "echo $?":
			fmt.Fprintf(&out, "%d\n", s.lastExit)
		case strings.HasPrefix(st.cmd, "ollm "):
			args, err := splitWords(strings.TrimPrefix(st.cmd, "ollm "))
			if err != nil {
				s.failf(b, "%s: %v", st.cmd, err)
				return
			}
			s.lastExit = int(Run(s.factory(&out), args))
		default:
			cmd := exec.Command("bash", "-c", st.cmd)
			cmd.Dir = s.dir
			cmd.Env = append(os.Environ(), "OLLM_HOME="+s.home)
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				s.failf(b, "%s: %v\n%s", st.cmd, err, out.String())
				return
			}
		}
		got := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
		if out.Len() == 0 {
			got = nil
		}
		if !matchLines(st.want, got) {
			s.failf(b, "$ %s\nwant:\n%s\ngot:\n%s", st.cmd, strings.Join(st.want, "\n"), out.String())
		}
	}
}

// matchLines compares output lines with expected ones, where "..." in a
// line matches any text and a line "..." any number of lines.
func matchLines(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if strings.TrimSpace(want[0]) == "..." {
		for i := 0; i <= len(got); i++ {
			if matchLines(want[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	if len(got) == 0 {
		return false
	}
	parts := strings.Split(want[0], "...")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	re := regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
	return re.MatchString(got[0]) && matchLines(want[1:], got[1:])
}

// splitWords splits a command line as a POSIX shell would for the words
// the docs use: blanks, single quotes, double quotes with \" and \\.
func splitWords(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				out, inWord = append(out, cur.String()), false
				cur.Reset()
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unclosed single quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i, inWord = i+1+j, true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unclosed double quote")
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}

// validate checks a profile or manifest block on its own.
func (s *docSession) validate(b fenced, name string, manifest bool) {
	s.t.Helper()
	dir := s.t.TempDir()
	var args []string
	file := filepath.Join(dir, name)
	if manifest {
		file = filepath.Join(dir, "ext", name)
		args = append(args, "--ext", filepath.Dir(file))
	}
	args = append(args, "-C", dir, "profile", "validate")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(b.body), 0o644); err != nil {
		s.t.Fatal(err)
	}
	var out bytes.Buffer
	f := s.factory(&out)
	f.Getenv = func(k string) string {
		if k == "OLLM_HOME" {
			return filepath.Join(dir, ".ollm-home")
		}
		return ""
	}
	want := "ok: 2 layers, 0 extensions"
	if manifest {
		want = "ok: 1 layers, 1 extensions"
	}
	// A snippet is checked on its own: warnings about what it does not
	// show (an extension's required setting, settings of an extension
	// defined elsewhere) are expected; errors are not.
	var kept []string
	warning := false
	code := Run(f, args)
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		switch {
		case strings.HasPrefix(line, "warning: "):
			warning = true
			continue
		case warning && strings.HasPrefix(line, "  fix: "):
			continue
		}
		warning = false
		kept = append(kept, line)
	}
	if code != ExitOK || strings.Join(kept, "\n") != want {
		s.failf(b, "%s does not validate (exit %d):\n%s", name, code, out.String())
	}
}

var docSession0 = hooks.Session{ID: "7f3e9c2a", Cwd: "/home/me/project"}

func dialectOf(b fenced) string {
	if d := b.tags["dialect"]; d != "" {
		return d
	}
	return hooks.DialectOllm
}

// hookInput rebuilds the example with hooks.BuildInput from its own data
// and compares the two.
func (s *docSession) hookInput(b fenced) {
	s.t.Helper()
	ev, err := hooks.ParseEvent(b.tags["event"])
	if err != nil {
		s.failf(b, "%v", err)
		return
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(b.body), &doc); err != nil {
		s.failf(b, "not JSON: %v", err)
		return
	}
	h := &hooks.Hook{Name: "guard", Event: ev, Def: schema.Hook{Dialect: dialectOf(b)}}
	sess := docSession0
	var data, extra map[string]any
	var now time.Time
	switch dialectOf(b) {
	case hooks.DialectOllm:
		data, _ = doc["data"].(map[string]any)
		extra, _ = doc["extra"].(map[string]any)
		md, _ := doc["metadata"].(map[string]any)
		h.Name, _ = md["hookName"].(string)
		h.Extension, _ = md["extension"].(string)
		h.Version, _ = md["hookVersion"].(string)
		h.Declared, _ = md["eventAlias"].(string)
		sess.ID, _ = md["sessionId"].(string)
		sess.Cwd, _ = md["cwd"].(string)
		ts, _ := md["timestamp"].(string)
		now, _ = time.Parse(time.RFC3339Nano, ts)
		for k := range data {
			if !knownField(ev, k) {
				s.failf(b, "data field %q is not a field of %s (hooks.Fields)", k, ev)
			}
		}
	default:
		sess.ID, _ = doc["session_id"].(string)
		sess.Cwd, _ = doc["cwd"].(string)
		ts, _ := doc["timestamp"].(string)
		now, _ = time.Parse(time.RFC3339Nano, ts)
		data = dataFromDialect(doc)
	}
	raw, err := hooks.BuildInput(h, ev, data, extra, sess, now, 0)
	if err != nil {
		s.failf(b, "BuildInput: %v", err)
		return
	}
	var built map[string]any
	_ = json.Unmarshal(raw, &built)
	if !reflect.DeepEqual(built, doc) {
		pretty, _ := json.MarshalIndent(built, "", "  ")
		s.failf(b, "%s input in dialect %s differs from what ollm sends:\n%s", ev, dialectOf(b), pretty)
	}
}

// knownField reports whether k is a data field an event carries.
func knownField(ev hooks.Event, k string) bool {
	for _, f := range hooks.Fields[ev] {
		if f == k {
			return true
		}
	}
	switch k {
	case "session_id":
		return true
	case "source":
		return ev == hooks.SessionStart
	case "trigger":
		return ev == hooks.OnContextOverflow
	}
	return false
}

// dataFromDialect maps a Claude or Gemini input back to ollm's data names.
func dataFromDialect(doc map[string]any) map[string]any {
	data := map[string]any{}
	for from, to := range map[string]string{"tool_name": "tool_name", "tool_input": "args", "tool_response": "result",
		"prompt": "prompt", "source": "source", "reason": "reason", "trigger": "trigger", "message": "message",
		"prompt_response": "response"} {
		if v, ok := doc[from]; ok {
			data[to] = v
		}
	}
	if tp, _ := doc["transcript_path"].(string); tp != "" {
		data["transcript_path"] = tp
	}
	if req, ok := doc["llm_request"].(map[string]any); ok {
		for from, to := range map[string]string{"model": "model", "messages": "messages", "tools": "available_tools"} {
			if v := req[from]; v != nil {
				data[to] = v
			}
		}
	}
	if resp, ok := doc["llm_response"].(map[string]any); ok && resp["text"] != nil {
		data["response"] = resp["text"]
	}
	return data
}

// hookOutput interprets the example as ollm does and checks the verdict.
func (s *docSession) hookOutput(b fenced) {
	s.t.Helper()
	ev, err := hooks.ParseEvent(b.tags["event"])
	if err != nil {
		s.failf(b, "%v", err)
		return
	}
	exit := 0
	if e := b.tags["exit"]; e != "" {
		fmt.Sscan(e, &exit)
	}
	v := hooks.Interpret(dialectOf(b), ev, hooks.RunOutput{Stdout: []byte(b.body), ExitCode: exit})
	if v.Failure != "" {
		s.failf(b, "output is a failure (%s): %s", v.Failure, v.Detail)
		return
	}
	expects := strings.Split(b.tags["expect"], ",")
	wantExtra := false
	for _, e := range expects {
		kind, field, _ := strings.Cut(e, ":")
		switch kind {
		case "block":
			if !v.Block || v.Reason == "" {
				s.failf(b, "want a block with a reason, got %+v", v)
			}
		case "continue":
			if v.Block {
				s.failf(b, "want continue, got a block: %s", v.Reason)
			}
		case "message":
			if v.SystemMessage == "" {
				s.failf(b, "want a system message, got none")
			}
		case "rewrite":
			if _, ok := v.Data[field]; !ok || hooks.Rewritable[ev] != field {
				s.failf(b, "want %s rewritten (rewritable on %s: %q), got data %v", field, ev, hooks.Rewritable[ev], v.Data)
			}
		case "extra":
			wantExtra = true
			if _, ok := v.Extra[field]; !ok {
				s.failf(b, "want extra field %s, got %v", field, v.Extra)
			}
		default:
			s.failf(b, "unknown expectation %q", e)
		}
	}
	if !wantExtra && len(v.Extra) > 0 {
		s.failf(b, "fields ollm does not know (passed on as extra): %v", v.Extra)
	}
}

// The events table of docs/hooks.md lists every canonical event with
// exactly the aliases both core/hooks and the schema's #Event accept.
func TestHookEventTable(t *testing.T) {
	doc, err := os.ReadFile("../../docs/hooks.md")
	if err != nil {
		t.Fatal(err)
	}
	cueSrc, err := os.ReadFile("../../cue/profile.cue")
	if err != nil {
		t.Fatal(err)
	}
	start := strings.Index(string(cueSrc), "#Event:")
	end := strings.Index(string(cueSrc), "#Source:")
	if start < 0 || end < start {
		t.Fatal("no #Event in cue/profile.cue")
	}
	schemaNames := map[string]bool{}
	for _, m := range regexp.MustCompile(`"([^"]+)"`).FindAllStringSubmatch(string(cueSrc)[start:end], -1) {
		schemaNames[m[1]] = true
	}
	_, section, _ := strings.Cut(string(doc), "\n## Events\n")
	rows := map[string][]string{}
	row := regexp.MustCompile("^\\| `([a-z_]+)` \\|([^|]*)\\|")
	for _, l := range strings.Split(section, "\n") {
		if strings.HasPrefix(l, "The data each event") {
			break
		}
		if m := row.FindStringSubmatch(l); m != nil {
			var as []string
			for _, a := range strings.Split(m[2], ",") {
				if a = strings.Trim(strings.TrimSpace(a), "`"); a != "" {
					as = append(as, a)
				}
			}
			rows[m[1]] = as
		}
	}
	for _, e := range hooks.Events {
		got, ok := rows[string(e)]
		if !ok {
			t.Errorf("docs/hooks.md: event %s has no row in the events table", e)
			continue
		}
		if !schemaNames[string(e)] {
			t.Errorf("canonical event %s is not in #Event", e)
		}
		var want []string
		for _, a := range hooks.Aliases(e) {
			if schemaNames[a] {
				want = append(want, a)
			}
		}
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("docs/hooks.md: %s aliases = %v, want %v", e, got, want)
		}
	}
	if len(rows) != len(hooks.Events) {
		t.Errorf("events table has %d rows, want %d", len(rows), len(hooks.Events))
	}
}

// Every relative link in README.md and docs/*.md points at a file that
// exists and, for a #fragment into a markdown file, at one of its headings
// (GitHub's anchors: lower case, punctuation dropped, blanks as '-').
func TestDocLinks(t *testing.T) {
	files, _ := filepath.Glob("../../docs/*.md")
	files = append(files, "../../README.md")
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := stripFences(string(data))
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, frag, _ := strings.Cut(target, "#")
			file := f
			if path != "" {
				file = filepath.Join(filepath.Dir(f), path)
			}
			if _, err := os.Stat(file); err != nil {
				t.Errorf("%s: link %s: %v", filepath.Base(f), target, err)
				continue
			}
			if frag == "" || !strings.HasSuffix(file, ".md") {
				continue
			}
			body, _ := os.ReadFile(file)
			if !headingAnchors(string(body))[frag] {
				t.Errorf("%s: link %s: no heading with anchor #%s in %s", filepath.Base(f), target, frag, filepath.Base(file))
			}
		}
	}
}

// stripFences removes fenced code blocks, whose text is not markdown.
func stripFences(md string) string {
	var out []string
	in := false
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "```") {
			in = !in
			continue
		}
		if !in {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func headingAnchors(md string) map[string]bool {
	out := map[string]bool{}
	for _, l := range strings.Split(stripFences(md), "\n") {
		if !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(l, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
				b.WriteRune(r)
			}
		}
		out[b.String()] = true
	}
	return out
}
