package resolver

import "testing"

// A cache left by a process killed between `git init` and adding the
// remote is rebuilt, not used ("remote not found").
func TestCacheWithoutRemoteIsRebuilt(t *testing.T) {
	g := &GoGit{CacheDir: t.TempDir()}
	url := "/nowhere/repo.git"
	repo, unlock, err := g.cacheRepo(url)
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	if err := repo.DeleteRemote("origin"); err != nil {
		t.Fatal(err)
	}
	repo, unlock, err = g.cacheRepo(url)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	r, err := repo.Remote("origin")
	if err != nil || r.Config().URLs[0] != url {
		t.Fatalf("origin after rebuild: %v %v", r, err)
	}
}
