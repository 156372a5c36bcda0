package styles

import (
	"embed"
	"io/fs"
	"sort"
	"sync"

	"github.com/ollm/ollm/internal/fork/chroma"
)

//go:embed *.xml
var embedded embed.FS

// Registry of Styles.
//
// ollm patch: the embedded styles are parsed on the first call of Get,
// Names or Register, not at package initialisation (which cost every
// process linking chroma ~5 ms); until then Registry holds only what was
// stored in it directly. The deprecated per-style variables of compat.go
// are gone with it.
var Registry = map[string]*chroma.Style{}

// Fallback style. Reassign to change the default fallback style. It is set
// to "swapoff" when the embedded styles are loaded, unless reassigned.
var Fallback *chroma.Style

var loadOnce sync.Once

// load registers every embedded style, once. A style already registered
// under the same name is kept.
func load() {
	loadOnce.Do(func() {
		files, err := fs.ReadDir(embedded, ".")
		if err != nil {
			panic(err)
		}
		for _, file := range files {
			if file.IsDir() {
				continue
			}
			r, err := embedded.Open(file.Name())
			if err != nil {
				panic(err)
			}
			style, err := chroma.NewXMLStyle(r)
			if err != nil {
				panic(err)
			}
			if _, ok := Registry[style.Name]; !ok {
				Registry[style.Name] = style
			}
			_ = r.Close()
		}
		if Fallback == nil {
			Fallback = Registry["swapoff"]
		}
	})
}

// Register a chroma.Style.
func Register(style *chroma.Style) *chroma.Style {
	load()
	Registry[style.Name] = style
	return style
}

// Names of all available styles.
func Names() []string {
	load()
	out := []string{}
	for name := range Registry {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Get named style, or Fallback.
func Get(name string) *chroma.Style {
	load()
	if style, ok := Registry[name]; ok {
		return style
	}
	return Fallback
}
