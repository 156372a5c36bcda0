package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ollm/ollm/schema"
)

// Generation is what one `ollm profile apply` produced: the resolved
// profile, the lock it was resolved with and a digest of every input, so
// the runtime can load it without CUE while the inputs are unchanged.
// Generation files are written once and never changed; they hold settings
// values, env maps and headers, so they are readable by their owner only
// (mode 0400, in a 0700 directory).
type Generation struct {
	Number       int             `json:"number"`
	Created      time.Time       `json:"created"`
	Workspace    string          `json:"workspace"`
	LockDigest   string          `json:"lockDigest"`   // sha256 of the ollm.lock bytes
	InputsDigest string          `json:"inputsDigest"` // sha256 over Inputs
	Inputs       []InputFile     `json:"inputs"`
	StoreEntries []string        `json:"storeEntries,omitempty"` // store directory names it uses
	Lock         schema.Lock     `json:"lock"`
	Resolved     schema.Resolved `json:"resolved"`
	// Gated is the resolution with an unapproved workspace's widening
	// values held back: what runs while the workspace is not approved at
	// Gated.Trust.Digest. nil when nothing would be held back.
	Gated *schema.Resolved `json:"gated,omitempty"`
	// Sealed counts the secret values written in the profile that the
	// file holds as references into the home's SecretStore
	// ($OLLM_HOME/secrets): Write seals them, Read puts them back, so no
	// generation file holds one in clear.
	Sealed int `json:"sealed,omitempty"`
}

// InputFile is one file whose bytes went into a generation. Digest is
// "sha256:<hex>" or "absent".
type InputFile struct {
	Path   string `json:"path"`
	Digest string `json:"digest"`
}

// Generations is the directory of generations and the pointer file that
// says which one is current for each workspace.
type Generations struct{ Dir string }

// current.json: workspace root -> pointer.
type currentFile struct {
	Workspaces map[string]CurrentPointer `json:"workspaces"`
}

// CurrentPointer names the current generation of a workspace. Rollback is
// set when a user switched to it with `ollm profile rollback`: it stays
// current even after the inputs change, until the next apply.
type CurrentPointer struct {
	Generation int  `json:"generation"`
	Rollback   bool `json:"rollback,omitempty"`
}

// PermGeneration is the mode of a generation file: private and read-only.
const PermGeneration fs.FileMode = 0o400

func (g Generations) file(n int) string { return filepath.Join(g.Dir, strconv.Itoa(n)+".json") }
func (g Generations) currentPath() string {
	return filepath.Join(g.Dir, "current.json")
}

// Write stores gen under the next free number, which it returns, and makes
// it the workspace's current generation.
func (g Generations) Write(gen *Generation) (int, error) {
	if err := PrivateDir(g.Dir); err != nil {
		return 0, err
	}
	unlock, err := Lock(filepath.Join(g.Dir, "generations"))
	if err != nil {
		return 0, err
	}
	defer unlock()
	nums, err := g.numbers()
	if err != nil {
		return 0, err
	}
	n := 1
	if len(nums) > 0 {
		n = nums[len(nums)-1] + 1
	}
	cp := *gen
	cp.Number = n
	if err := seal(SecretsOf(g.Dir), &cp); err != nil {
		return 0, err
	}
	if err := WriteJSON(g.file(n), &cp, PermGeneration); err != nil {
		return 0, err
	}
	return n, g.SetCurrent(gen.Workspace, CurrentPointer{Generation: n})
}

// numbers lists the generation numbers present, ascending.
func (g Generations) numbers() ([]int, error) {
	des, err := os.ReadDir(g.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []int
	for _, d := range des {
		base, ok := strings.CutSuffix(d.Name(), ".json")
		if n, err := strconv.Atoi(base); ok && err == nil && n > 0 {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out, nil
}

// Read loads generation n.
func (g Generations) Read(n int) (*Generation, error) {
	var gen Generation
	found, err := ReadJSON(g.file(n), &gen)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("generation %d does not exist; list them with `ollm profile generations`", n)
	}
	if gen.Sealed > 0 {
		st := SecretsOf(g.Dir)
		err := st.Unseal(&gen.Resolved)
		if err == nil && gen.Gated != nil {
			err = st.Unseal(gen.Gated)
		}
		if err != nil {
			return nil, fmt.Errorf("generation %d: %w", n, err)
		}
	}
	return &gen, nil
}

// seal replaces the secret values of gen's resolutions by references.
func seal(st SecretStore, gen *Generation) error {
	r, n, err := st.Seal(&gen.Resolved)
	if err != nil {
		return err
	}
	gen.Resolved, gen.Sealed = *r, n
	if gen.Gated != nil {
		g, m, err := st.Seal(gen.Gated)
		if err != nil {
			return err
		}
		gen.Gated, gen.Sealed = g, gen.Sealed+m
	}
	return nil
}

// All loads every generation, oldest first.
func (g Generations) All() ([]*Generation, error) {
	nums, err := g.numbers()
	if err != nil {
		return nil, err
	}
	var out []*Generation
	for _, n := range nums {
		gen, err := g.Read(n)
		if err != nil {
			return nil, err
		}
		out = append(out, gen)
	}
	return out, nil
}

// Current returns the workspace's current pointer; ok is false when the
// workspace has never been applied.
func (g Generations) Current(workspace string) (CurrentPointer, bool, error) {
	var cf currentFile
	if _, err := ReadJSON(g.currentPath(), &cf); err != nil {
		return CurrentPointer{}, false, err
	}
	p, ok := cf.Workspaces[workspace]
	return p, ok, nil
}

// SetCurrent points the workspace at a generation, atomically.
func (g Generations) SetCurrent(workspace string, p CurrentPointer) error {
	if err := PrivateDir(g.Dir); err != nil {
		return err
	}
	return UpdateJSON(g.currentPath(), PermPrivate, func(cf *currentFile) error {
		if cf.Workspaces == nil {
			cf.Workspaces = map[string]CurrentPointer{}
		}
		cf.Workspaces[workspace] = p
		return nil
	})
}
