package lexers

import (
	"github.com/ollm/ollm/internal/fork/chroma"
)

// HTML lexer.
var HTML = chroma.MustNewXMLLexer(embedded, "embedded/html.xml")
