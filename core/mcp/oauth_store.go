package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/ollm/ollm/store"
)

// tokenRecord is one server's OAuth state on disk: the client ollm
// registered with the authorization server and the tokens it got. It is
// bound to the server's URL; a record for another URL is not used.
type tokenRecord struct {
	Server string `json:"server"`
	URL    string `json:"url"`
	// ResourceMetadata is the protected resource metadata URL the server
	// named in its WWW-Authenticate challenge (same origin only), so a
	// refresh discovers the authorization server the way the login did.
	ResourceMetadata string `json:"resourceMetadata,omitempty"`
	// Issuer is the authorization server the client is registered with
	// and the tokens come from; when discovery later finds another (the
	// server moved), neither the client nor the tokens are sent there: a
	// new login registers again.
	Issuer       string `json:"issuer,omitempty"`
	ClientID     string `json:"clientId"`
	ClientSecret string `json:"clientSecret,omitempty"`
	AuthMethod   string `json:"tokenEndpointAuthMethod,omitempty"`
	RedirectURI  string `json:"redirectUri,omitempty"`
	// Scopes were asked for at login (and are asked for again at a
	// step-up, with the ones the server wants added).
	Scopes []string `json:"scopes,omitempty"`
	// Grant is the grant the token came from; client_credentials tokens
	// are fetched again without a user when they expire.
	Grant string `json:"grant,omitempty"`
	// PreRegistered: the client was registered beforehand (its id was
	// given), so a step-up login uses it again rather than registering.
	PreRegistered bool `json:"preRegistered,omitempty"`
	// AuthServerMetadata is the metadata URL found by the 2025-03-26
	// rule (the server's root), so a refresh finds the same endpoints.
	AuthServerMetadata string `json:"authServerMetadata,omitempty"`
	// PrivateKeyFile and KeyID authenticate a client_credentials client
	// with private_key_jwt; the key stays in its file.
	PrivateKeyFile string `json:"privateKeyFile,omitempty"`
	KeyID          string `json:"keyId,omitempty"`
	// DPoPKey is the server's DPoP private key (RFC 9449; PKCS#8,
	// base64url) when its authorization server or its challenge asked for
	// DPoP: the token is bound to it. It never leaves this file but as
	// the public key in a proof.
	DPoPKey string `json:"dpopKey,omitempty"`
	// Cross-app access (Grant GrantJWTBearer): the file the IdP's ID
	// token is read from again when the token expires (the token itself
	// is not stored), the IdP's token endpoint and ollm's client there.
	IDTokenFile      string          `json:"idTokenFile,omitempty"`
	IdPTokenEndpoint string          `json:"idpTokenEndpoint,omitempty"`
	IdPClientID      string          `json:"idpClientId,omitempty"`
	IdPClientSecret  string          `json:"idpClientSecret,omitempty"`
	Token            transport.Token `json:"token"`
	SavedAt          time.Time       `json:"savedAt"`
}

// expirySkew refreshes a token this long before it expires, so a request
// does not leave with a token that dies on the way.
const expirySkew = 30 * time.Second

// expired reports whether the token should be refreshed before use.
func expired(t transport.Token, now time.Time) bool {
	return !t.ExpiresAt.IsZero() && now.Add(expirySkew).After(t.ExpiresAt)
}

// tokenPath is where the server's record lives under dir: the server's
// name made safe for a file name, with a short hash of the exact name
// when that changed it (so "a.b" and "a_b" do not share a file).
func tokenPath(dir, server string) string {
	name := sanitizeName(server)
	if name != server {
		sum := sha256.Sum256([]byte(server))
		name += "-" + hex.EncodeToString(sum[:4])
	}
	return filepath.Join(dir, name+".json")
}

// TokenPath is the file under tokenDir that holds the OAuth tokens of the
// server name.
func TokenPath(tokenDir, name string) string { return tokenPath(tokenDir, name) }

// tokenFile is a server's record on disk; it is the TokenStore mcp-go's
// OAuth handler saves into. Writes are atomic and 0600, in a 0700
// directory.
type tokenFile struct {
	path string
	mu   sync.Mutex
	rec  tokenRecord // what SaveToken writes besides the token
}

// errNoRecord: no usable record (never logged in, logged out, or the
// record is for another URL).
var errNoRecord = errors.New("not logged in")

// load reads the record; errNoRecord when there is none for url.
func (f *tokenFile) load(url string) (tokenRecord, error) {
	data, err := os.ReadFile(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return tokenRecord{}, errNoRecord
	}
	if err != nil {
		return tokenRecord{}, err
	}
	var rec tokenRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return tokenRecord{}, fmt.Errorf("%s: %w; delete it with `ollm mcp logout` and log in again", f.path, err)
	}
	if rec.URL != url || rec.Token.AccessToken == "" {
		return tokenRecord{}, errNoRecord
	}
	f.mu.Lock()
	f.rec = rec
	f.mu.Unlock()
	return rec, nil
}

// GetToken implements transport.TokenStore.
func (f *tokenFile) GetToken(ctx context.Context) (*transport.Token, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rec.Token.AccessToken == "" {
		return nil, transport.ErrNoToken
	}
	t := f.rec.Token
	return &t, nil
}

// SaveToken implements transport.TokenStore: the record with the new
// token, written atomically with mode 0600.
func (f *tokenFile) SaveToken(ctx context.Context, t *transport.Token) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	f.rec.Token = *t
	f.rec.SavedAt = time.Now().UTC()
	rec := f.rec
	f.mu.Unlock()
	return writeRecord(f.path, rec)
}

func writeRecord(path string, rec tokenRecord) error {
	if err := store.PrivateDir(filepath.Dir(path)); err != nil {
		return err
	}
	return store.WriteJSON(path, rec, store.PermPrivate)
}

// setClient records the registered client, before the token arrives.
func (f *tokenFile) setClient(rec tokenRecord) {
	f.mu.Lock()
	defer f.mu.Unlock()
	tok := f.rec.Token
	f.rec = rec
	f.rec.Token = tok
}

// Logout deletes the stored OAuth tokens of the server name under
// tokenDir (store.Home.Tokens()). It reports whether there were any.
func Logout(tokenDir, name string) (bool, error) {
	err := os.Remove(tokenPath(tokenDir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}
