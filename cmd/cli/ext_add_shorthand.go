package cli

import (
	"os"
	"path/filepath"

	"github.com/ollm/ollm/internal/lazyre"
)

// shorthandHost is the git host an `owner/repo` source names, as in
// Claude Code's `/plugin marketplace add`.
const shorthandHost = "github.com"

// shorthandRE is owner/repo: an account name (letters, digits, inner
// dashes) and a repository name, nothing else.
var shorthandRE = lazyre.New(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$`)

// expandShorthand turns owner/repo into the https URL of that repository
// on the usual public git host. A local directory of that name (relative
// to wd) wins: `ollm ext add plugins/guard` still adds the folder.
func expandShorthand(url, wd string) string {
	if !shorthandRE.MatchString(url) || url[len(url)-1] == '.' {
		return url
	}
	if _, err := os.Stat(filepath.Join(wd, filepath.FromSlash(url))); err == nil {
		return url
	}
	owner, repo := splitOwner(url)
	if repo == "." || repo == ".." {
		return url
	}
	if filepath.Ext(repo) != ".git" {
		repo += ".git"
	}
	return "https://" + shorthandHost + "/" + owner + "/" + repo
}

func splitOwner(s string) (string, string) {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}
