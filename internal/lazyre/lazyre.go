// Package lazyre is a regular expression compiled on its first use, not at
// package initialisation: every ollm command pays for the initialisation
// of every linked package before main (`ollm version` included), and a
// package-level regexp.MustCompile costs about 20-100 µs each.
//
// A Regexp is safe for concurrent use. An invalid expression panics on
// first use, as regexp.MustCompile would at start; TestAll in the packages
// that use it compile them all.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a regexp.Regexp compiled when first used.
type Regexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// New returns expr, to be compiled on first use.
func New(expr string) *Regexp { return &Regexp{expr: expr} }

// Re is the compiled expression.
func (r *Regexp) Re() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.expr) })
	return r.re
}

// String is the source text.
func (r *Regexp) String() string { return r.expr }

// MatchString reports whether s contains a match.
func (r *Regexp) MatchString(s string) bool { return r.Re().MatchString(s) }

// FindString is regexp.Regexp.FindString.
func (r *Regexp) FindString(s string) string { return r.Re().FindString(s) }

// FindStringSubmatch is regexp.Regexp.FindStringSubmatch.
func (r *Regexp) FindStringSubmatch(s string) []string { return r.Re().FindStringSubmatch(s) }

// FindAllStringSubmatch is regexp.Regexp.FindAllStringSubmatch.
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Re().FindAllStringSubmatch(s, n)
}

// FindAllString is regexp.Regexp.FindAllString.
func (r *Regexp) FindAllString(s string, n int) []string { return r.Re().FindAllString(s, n) }

// ReplaceAllString is regexp.Regexp.ReplaceAllString.
func (r *Regexp) ReplaceAllString(src, repl string) string { return r.Re().ReplaceAllString(src, repl) }

// ReplaceAllStringFunc is regexp.Regexp.ReplaceAllStringFunc.
func (r *Regexp) ReplaceAllStringFunc(src string, f func(string) string) string {
	return r.Re().ReplaceAllStringFunc(src, f)
}
