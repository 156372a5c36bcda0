package policy

import (
	"slices"
	"strings"
)

// GNU parallel: `parallel [options] [template] ::: args...` runs the
// template through a shell once per argument, filling replacement strings
// ({}, {.}, {1}, ...) or appending the argument; without a template each
// argument is a command line; without ::: the arguments (or commands)
// come from its input.

var parallelValueOpts = []string{"--jobs", "--arg-file", "--colsep", "--delimiter", "--sshlogin",
	"--joblog", "--results", "--tmpdir", "--timeout", "--delay", "--retries", "--halt", "--env",
	"--workdir", "--basefile", "--return", "--nice", "--load", "--memfree", "--tagstring",
	"--replace", "--max-args", "--max-replace-args", "--max-lines", "--block", "--rpl", "--eof"}

// parallelFills are options that change how arguments fill the template;
// with them the arguments are not worked out.
var parallelFills = []string{"--replace", "--max-args", "--max-replace-args", "--max-lines", "--colsep",
	"--pipe", "--pipepart", "--xapply", "--link", "--header", "--plus", "--rpl", "--null",
	"--delimiter", "--arg-file", "--shebang", "--fifo", "--cat"}

// maxParallelJobs bounds how many commands of one parallel are judged.
const maxParallelJobs = 64

func parallelWrap(args []any) []inner {
	i, ok := skipOpts(args, "aCdEIjLnNPSs", parallelValueOpts...)
	if !ok {
		return notLiteral
	}
	quote, fills := false, false
	for _, a := range args[:i] {
		s, _ := a.(string) // an option's value may be unknown
		long := strings.SplitN(s, "=", 2)[0]
		switch {
		case s == "-q" || s == "--quote":
			quote = true
		case strings.HasPrefix(s, "--"):
			fills = fills || slices.Contains(parallelFills, long)
		case strings.HasPrefix(s, "-"):
			fills = fills || strings.ContainsAny(s[1:], "IiXmnNLlC0da")
			quote = quote || strings.ContainsRune(s[1:], 'q')
		}
	}
	j := i
	for j < len(args) && !isParallelSep(args[j]) {
		j++
	}
	tmpl, jobs := args[i:j], parallelJobs(args[j:])
	if len(tmpl) == 0 {
		return parallelCommands(jobs, j == len(args))
	}
	text, ok := templateText(tmpl, quote)
	if !ok {
		return notLiteral
	}
	if fills || jobs == nil {
		if strings.ContainsRune(text, '{') {
			return []inner{{note: "parallel fills its command with arguments known only when it runs"}}
		}
		return []inner{{script: text + ` "$PARALLEL_ARGUMENT"`}}
	}
	out := make([]inner, 0, len(jobs))
	for _, job := range jobs {
		q := make([]string, len(job))
		for k, a := range job {
			q[k] = quoteWord(a)
		}
		arg := strings.Join(q, " ")
		switch {
		case strings.Contains(text, "{}"):
			out = append(out, inner{script: strings.ReplaceAll(text, "{}", arg)})
		case strings.ContainsRune(text, '{'):
			return []inner{{note: "parallel fills its command with replacement strings the policy does not work out"}}
		default:
			out = append(out, inner{script: text + " " + arg})
		}
	}
	return out
}

func isParallelSep(v any) bool {
	s, ok := v.(string)
	return ok && (s == ":::" || s == "::::" || s == ":::+" || s == "::::+")
}

// parallelCommands: without a template each argument is a command line.
func parallelCommands(jobs [][]string, fromInput bool) []inner {
	switch {
	case fromInput:
		return readsStdin("sh")
	case jobs == nil:
		return []inner{{note: "parallel runs commands known only when it runs"}}
	}
	out := make([]inner, 0, len(jobs))
	for _, job := range jobs {
		out = append(out, inner{script: strings.Join(job, " "), how: ":::"})
	}
	return out
}

// templateText joins the template's words as parallel does: as shell
// text, or with -q each word quoted.
func templateText(tmpl []any, quote bool) (string, bool) {
	words := make([]string, len(tmpl))
	for k, w := range tmpl {
		s, ok := w.(string)
		if !ok {
			return "", false
		}
		if quote {
			s = quoteWord(s)
		}
		words[k] = s
	}
	return strings.Join(words, " "), true
}

// parallelJobs lists the argument combinations of ::: sources (every
// combination, as parallel does); nil when there are none or they are not
// all literal, come from files (::::), are linked (:::+) or are too many.
func parallelJobs(srcs []any) [][]string {
	var groups [][]string
	for _, a := range srcs {
		s, ok := a.(string)
		switch {
		case !ok:
			return nil
		case s == ":::":
			groups = append(groups, nil)
		case isParallelSep(s):
			return nil
		case len(groups) > 0:
			groups[len(groups)-1] = append(groups[len(groups)-1], s)
		}
	}
	if len(groups) == 0 {
		return nil
	}
	jobs := [][]string{nil}
	for _, g := range groups {
		next := make([][]string, 0, len(jobs)*len(g))
		for _, j := range jobs {
			for _, a := range g {
				next = append(next, append(j[:len(j):len(j)], a))
			}
		}
		if len(next) > maxParallelJobs {
			return nil
		}
		jobs = next
	}
	if len(jobs) == 0 {
		return nil
	}
	return jobs
}
