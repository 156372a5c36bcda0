package store

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ollm/ollm/internal/secrets"
	"github.com/ollm/ollm/schema"
)

// SecretRefPrefix starts the reference that stands for a secret value in
// a generation or a cached resolution: "ollm-secret:<id>".
const SecretRefPrefix = "ollm-secret:"

// SecretStore keeps the secret values written literally in a profile
// (a sensitive setting, a secret-looking env entry or header, a URL with
// credentials), one 0600 file per value in a 0700 directory, so the
// generations and caches ollm writes for itself hold only references.
// A value's id is an HMAC of it under a random key kept beside it: the
// same value gets the same id (generations share it), and an id says
// nothing about the value to whoever reads a generation.
type SecretStore struct{ Dir string }

// SecretsOf is the secret store of the home whose generations are in
// genDir: $OLLM_HOME/secrets beside $OLLM_HOME/generations.
func SecretsOf(genDir string) SecretStore {
	return SecretStore{Dir: filepath.Join(filepath.Dir(genDir), "secrets")}
}

func (s SecretStore) key() ([]byte, error) {
	p := filepath.Join(s.Dir, "key")
	if b, err := os.ReadFile(p); err == nil && len(b) == 32 {
		return b, nil
	}
	if err := PrivateDir(s.Dir); err != nil {
		return nil, err
	}
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return nil, err
	}
	// O_EXCL: two processes creating the key at once agree on the first.
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, PermPrivate)
	if errors.Is(err, fs.ErrExist) {
		b, err := os.ReadFile(p)
		if err == nil && len(b) != 32 {
			err = fmt.Errorf("%s is not a 32-byte key: remove it and run `ollm profile apply`", p)
		}
		return b, err
	}
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(k); err != nil {
		f.Close()
		return nil, err
	}
	return k, f.Close()
}

// Put stores v and returns its reference.
func (s SecretStore) Put(v string) (string, error) {
	k, err := s.key()
	if err != nil {
		return "", err
	}
	m := hmac.New(sha256.New, k)
	m.Write([]byte(v))
	id := hex.EncodeToString(m.Sum(nil))[:32]
	p := filepath.Join(s.Dir, id)
	if b, err := os.ReadFile(p); err != nil || string(b) != v {
		if err := WriteFile(p, []byte(v), PermPrivate); err != nil {
			return "", err
		}
	}
	return SecretRefPrefix + id, nil
}

// Get returns the value a reference stands for.
func (s SecretStore) Get(ref string) (string, error) {
	id, ok := strings.CutPrefix(ref, SecretRefPrefix)
	if !ok || len(id) != 32 || strings.ContainsAny(id, "/\\.") {
		return "", fmt.Errorf("%q is not a secret reference", ref)
	}
	b, err := os.ReadFile(filepath.Join(s.Dir, id))
	if err != nil {
		return "", fmt.Errorf("the secret %s is missing from %s (%v): run `ollm profile apply`", ref, s.Dir, err)
	}
	return string(b), nil
}

// Seal returns a copy of r in which every secret value written in the
// profile is replaced by a reference into s, and how many were. Sealed:
// the values of extension settings marked sensitive or with
// secret-looking names, env entries and headers with secret-looking names
// (of servers, extension servers and overrides) unless they only
// reference variables (${TOKEN} stays as written), sensitive setting
// defaults, and URLs with credentials (model.endpoint, server URLs),
// whole.
func (s SecretStore) Seal(r *schema.Resolved) (*schema.Resolved, int, error) {
	var c schema.Resolved
	b, err := json.Marshal(r)
	if err != nil {
		return nil, 0, err
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, 0, err
	}
	n := 0
	var failed error
	seal := func(v string) string {
		ref, err := s.Put(v)
		if err != nil {
			failed = err
			return v
		}
		n++
		return ref
	}
	visitSecrets(&c, seal)
	if failed != nil {
		return nil, 0, fmt.Errorf("keep the profile's secret values in %s: %w", s.Dir, failed)
	}
	return &c, n, nil
}

// Unseal puts the values back into r, in place.
func (s SecretStore) Unseal(r *schema.Resolved) error {
	var failed error
	visitSecrets(r, func(v string) string {
		if !strings.HasPrefix(v, SecretRefPrefix) {
			return v
		}
		out, err := s.Get(v)
		if err != nil {
			failed = err
			return v
		}
		return out
	})
	return failed
}

// visitSecrets calls f on each secret value of r (see Seal) and stores
// what it returns. A sealed URL is a reference, so URL fields holding one
// are visited too.
func visitSecrets(r *schema.Resolved, f func(string) string) {
	url := func(p *string) {
		if strings.HasPrefix(*p, SecretRefPrefix) || len(secrets.FromURL(*p)) > 0 {
			*p = f(*p)
		}
	}
	literal := func(m map[string]string) {
		for k, v := range m {
			if v != "" && secrets.LooksSecret(k) && (strings.HasPrefix(v, SecretRefPrefix) || !strings.Contains(v, "${")) {
				m[k] = f(v)
			}
		}
	}
	server := func(s *schema.MCPServer) {
		literal(s.Env)
		literal(s.Headers)
		url(&s.URL)
	}
	url(&r.Profile.Model.Endpoint)
	sensitive := map[string]map[string]bool{}
	for i := range r.Extensions {
		x := &r.Extensions[i]
		for j := range x.Manifest.Settings {
			st := &x.Manifest.Settings[j]
			if !st.Sensitive {
				continue
			}
			if sensitive[x.Name] == nil {
				sensitive[x.Name] = map[string]bool{}
			}
			sensitive[x.Name][st.Name] = true
			if d, ok := st.Default.(string); ok && d != "" {
				st.Default = f(d)
			}
		}
		for n, s := range x.Manifest.MCPServers {
			server(&s)
			x.Manifest.MCPServers[n] = s
		}
	}
	for ext, vals := range r.Profile.Settings {
		for k, v := range vals {
			if str, ok := v.(string); ok && str != "" && (sensitive[ext][k] || secrets.LooksSecret(k)) {
				vals[k] = f(str)
			}
		}
	}
	for n, s := range r.Profile.MCP.Servers {
		server(&s)
		r.Profile.MCP.Servers[n] = s
	}
	for n, o := range r.Profile.MCP.Overrides {
		literal(o.Env)
		r.Profile.MCP.Overrides[n] = o
	}
}
