package tool

import (
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Tool schemas of every draft (an MCP server's may name any) are checked
// against their metaschema and validate, also when compilers of several
// drafts start at once (go test -race).
func TestEveryDraftValidates(t *testing.T) {
	drafts := []string{"http://json-schema.org/draft-04/schema#", "http://json-schema.org/draft-06/schema#",
		"http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2019-09/schema", "https://json-schema.org/draft/2020-12/schema"}
	compile := func(doc string) (*jsonschema.Schema, error) {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
		if err != nil {
			return nil, err
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("mem://s.json", v); err != nil {
			return nil, err
		}
		return c.Compile("mem://s.json")
	}
	instance := func(s string) any {
		v, _ := jsonschema.UnmarshalJSON(strings.NewReader(s))
		return v
	}
	var wg sync.WaitGroup
	for range 3 {
		for _, d := range drafts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s, err := compile(`{"$schema":"` + d + `","type":"object","properties":{"n":{"type":"integer","minimum":3}},"required":["n"]}`)
				if err != nil {
					t.Errorf("%s: %v", d, err)
					return
				}
				if s.Validate(instance(`{"n":4}`)) != nil || s.Validate(instance(`{"n":1}`)) == nil || s.Validate(instance(`{}`)) == nil {
					t.Errorf("%s: validation", d)
				}
				if _, err := compile(`{"$schema":"` + d + `","type":"objekt"}`); err == nil {
					t.Errorf("%s: a schema its metaschema refuses compiled", d)
				}
			}()
		}
	}
	wg.Wait()
}
