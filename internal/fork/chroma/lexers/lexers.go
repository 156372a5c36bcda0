package lexers

import (
	"embed"
	"io/fs"
	"sync"

	"github.com/ollm/ollm/internal/fork/chroma"
)

//go:embed embedded
var embedded embed.FS

// GlobalLexerRegistry is the global LexerRegistry of Lexers.
//
// ollm patch: the embedded XML lexers are parsed on first use (any function
// of this package that looks a lexer up), not at package initialisation,
// which cost every process linking chroma ~8 ms. Lexers registered with
// Register during initialisation are added after the embedded ones, in the
// same order as upstream, and the analysers set by init functions are
// applied after that.
var GlobalLexerRegistry = chroma.NewLexerRegistry()

var (
	loadMu    sync.Mutex
	loaded    bool
	pending   []chroma.Lexer // registered before the first lookup
	afterLoad []func(*chroma.LexerRegistry)
)

// registry returns GlobalLexerRegistry with every lexer in it.
func registry() *chroma.LexerRegistry {
	loadMu.Lock()
	defer loadMu.Unlock()
	if !loaded {
		loaded = true
		paths, err := fs.Glob(embedded, "embedded/*.xml")
		if err != nil {
			panic(err)
		}
		for _, path := range paths {
			GlobalLexerRegistry.Register(chroma.MustNewXMLLexer(embedded, path))
		}
		for _, l := range pending {
			GlobalLexerRegistry.Register(l)
		}
		for _, f := range afterLoad {
			f(GlobalLexerRegistry)
		}
		pending, afterLoad = nil, nil
	}
	return GlobalLexerRegistry
}

// onLoad runs f once the registry is complete (at once if it is).
func onLoad(f func(*chroma.LexerRegistry)) {
	loadMu.Lock()
	if !loaded {
		afterLoad = append(afterLoad, f)
		loadMu.Unlock()
		return
	}
	loadMu.Unlock()
	f(GlobalLexerRegistry)
}

// Names of all lexers, optionally including aliases.
func Names(withAliases bool) []string {
	return registry().Names(withAliases)
}

// Aliases of all the lexers, and skip those lexers who do not have any aliases,
// or show their name instead
func Aliases(skipWithoutAliases bool) []string {
	return registry().Aliases(skipWithoutAliases)
}

// Get a Lexer by name, alias or file extension.
//
// Note that this if there isn't an exact match on name or alias, this will
// call Match(), so it is not efficient.
func Get(name string) chroma.Lexer {
	return registry().Get(name)
}

// MatchMimeType attempts to find a lexer for the given MIME type.
func MatchMimeType(mimeType string) chroma.Lexer {
	return registry().MatchMimeType(mimeType)
}

// Match returns the first lexer matching filename.
//
// Note that this iterates over all file patterns in all lexers, so it's not
// particularly efficient.
func Match(filename string) chroma.Lexer {
	return registry().Match(filename)
}

// Register a Lexer with the global registry.
func Register(lexer chroma.Lexer) chroma.Lexer {
	loadMu.Lock()
	if !loaded {
		lexer.SetRegistry(GlobalLexerRegistry)
		pending = append(pending, lexer)
		loadMu.Unlock()
		return lexer
	}
	loadMu.Unlock()
	return GlobalLexerRegistry.Register(lexer)
}

// Analyse text content and return the "best" lexer..
func Analyse(text string) chroma.Lexer {
	return registry().Analyse(text)
}

// PlaintextRules is used for the fallback lexer as well as the explicit
// plaintext lexer.
func PlaintextRules() chroma.Rules {
	return chroma.Rules{
		"root": []chroma.Rule{
			{Pattern: `.+`, Type: chroma.Text, Mutator: nil},
			{Pattern: `\n`, Type: chroma.Text, Mutator: nil},
		},
	}
}

// Fallback lexer if no other is found.
var Fallback chroma.Lexer = chroma.MustNewLexer(&chroma.Config{
	Name:      "fallback",
	Filenames: []string{"*"},
	Priority:  -1,
}, PlaintextRules)
