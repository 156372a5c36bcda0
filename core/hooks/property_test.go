package hooks

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/quick"
	"time"

	"github.com/ollm/ollm/schema"
)

// Properties 1-3: registering keeps each hook's data and the insertion
// order per event; unregistering by name removes exactly that hook.
func TestPropertyRegistryOrder(t *testing.T) {
	prop := func(seed int64) bool {
		rng := rand.New(rand.NewSource(seed))
		reg := &Registry{}
		var want []*Hook
		for i := range rng.Intn(40) {
			h := &Hook{Name: fmt.Sprintf("h%d", i), Event: Events[rng.Intn(len(Events))],
				Def: schema.Hook{Command: fmt.Sprintf("cmd-%d", rng.Int())}}
			reg.Register(h)
			want = append(want, h)
		}
		for _, ev := range Events {
			var exp []*Hook
			for _, h := range want {
				if h.Event == ev {
					exp = append(exp, h)
				}
			}
			if !reflect.DeepEqual(reg.ForEvent(ev), exp) {
				return false
			}
		}
		if len(want) == 0 {
			return true
		}
		gone := want[rng.Intn(len(want))]
		if reg.Unregister(gone.Name) != 1 {
			return false
		}
		for _, h := range reg.ForEvent(gone.Event) {
			if h == gone {
				return false
			}
		}
		return len(reg.All()) == len(want)-1
	}
	if err := quick.Check(prop, &quick.Config{MaxCount: 200}); err != nil {
		t.Fatal(err)
	}
}

// randomValue builds an arbitrary JSON value.
func randomValue(rng *rand.Rand, depth int) any {
	switch k := rng.Intn(7); {
	case k == 0:
		return nil
	case k == 1:
		return rng.Intn(2) == 0
	case k == 2:
		return float64(rng.Int63n(1<<53)) / float64(1+rng.Intn(1000))
	case k == 3 || depth > 3:
		return randomString(rng)
	case k == 4:
		list := make([]any, rng.Intn(5))
		for i := range list {
			list[i] = randomValue(rng, depth+1)
		}
		return list
	default:
		return randomMap(rng, depth+1)
	}
}

func randomMap(rng *rand.Rand, depth int) map[string]any {
	m := map[string]any{}
	for range rng.Intn(6) {
		m[randomString(rng)] = randomValue(rng, depth)
	}
	return m
}

func randomString(rng *rand.Rand) string {
	runes := []rune("aZ09 _-\"\\/\n\t\u00e9\u4e16\U0001F600<>&\u2028")
	var b strings.Builder
	for range rng.Intn(12) {
		b.WriteRune(runes[rng.Intn(len(runes))])
	}
	return b.String()
}

// Property 4: the data a hook reads on stdin decodes to the event data.
func TestPropertyInputRoundTrip(t *testing.T) {
	h := &Hook{Name: "h", Extension: "x"}
	prop := func(seed int64) bool {
		rng := rand.New(rand.NewSource(seed))
		data := randomMap(rng, 0)
		raw, err := BuildInput(h, Events[rng.Intn(len(Events))], data, nil, Session{ID: "s", Cwd: "/w"}, time.Unix(0, 0), 0)
		if err != nil {
			return false
		}
		var in Input
		if err := json.Unmarshal(raw, &in); err != nil {
			return false
		}
		if len(data) == 0 {
			return len(in.Data) == 0
		}
		return reflect.DeepEqual(in.Data, data) && in.Metadata.HookName == "h" && in.Metadata.Extension == "x"
	}
	if err := quick.Check(prop, &quick.Config{MaxCount: 300}); err != nil {
		t.Fatal(err)
	}
}

// The round trip through a real process: a python hook receives the
// data and sends it back unchanged.
func TestInputRoundTripThroughAProcess(t *testing.T) {
	dir := t.TempDir()
	src := "import json,sys\ni=json.load(sys.stdin)\nprint(json.dumps({'data': {'echo': i['data']}}))\n"
	if err := os.WriteFile(filepath.Join(dir, "echo.py"), []byte(src), 0o755); err != nil {
		t.Fatal(err)
	}
	h := &Hook{Name: "echo", Event: Custom, Scope: schema.ScopeUser, Dir: dir, Def: schema.Hook{Command: "python3", Args: []string{"echo.py"}}}
	e := newEngine(t, Options{}, h)
	rng := rand.New(rand.NewSource(1))
	for i := range 20 {
		data := randomMap(rng, 0)
		data["session_id"] = "sess-1"
		out := emit(t, e, Custom, data)
		if !reflect.DeepEqual(out.Data["echo"], data) {
			t.Fatalf("case %d: sent %#v, got back %#v (%+v)", i, data, out.Data["echo"], out.Results)
		}
	}
}
