//go:build !linux

package sandbox

type dirWatch struct{}

// newDirWatch cannot watch here: GitWatch walks instead.
func newDirWatch(string) (*dirWatch, bool) { return nil, true }

func (w *dirWatch) drain(*[]string) {}
func (w *dirWatch) close()          {}
