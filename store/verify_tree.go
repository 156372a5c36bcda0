package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

var newSHA256 = sha256.New

// specialFileError is a tree node that is neither a directory nor a
// regular file, or a name h1 cannot hash: the store never holds one.
type specialFileError struct{ Path, What string }

func (e *specialFileError) Error() string { return e.Path + " " + e.What }

// walkTree calls fn for every node below root, in lexical order, a
// directory before its contents, with slash-separated relative paths. It
// stats with lstat, so a symlink is reported, never followed.
func walkTree(root string, fn func(rel string, fi fs.FileInfo) error) error {
	return walkDir(root, "", fn)
}

func walkDir(root, rel string, fn func(string, fs.FileInfo) error) error {
	f, err := os.Open(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return err
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, n := range names {
		p := n
		if rel != "" {
			p = rel + "/" + n
		}
		fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			return err
		}
		switch {
		case fi.IsDir():
			if err := fn(p, fi); err != nil {
				return err
			}
			if err := walkDir(root, p, fn); err != nil {
				return err
			}
		case fi.Mode().IsRegular(), fi.Mode()&fs.ModeSymlink != 0:
			if err := fn(p, fi); err != nil {
				return err
			}
		default:
			return &specialFileError{Path: p, What: "is " + modeKind(fi.Mode()) + ", not a regular file"}
		}
	}
	return nil
}

// modeKind names a file type for a message.
func modeKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file (" + m.Type().String() + ")"
}

// treePrint is a stat fingerprint of a tree: a sha256 over every node's
// path, mode, size, mtime, ctime, inode, device and link count, in walk
// order; the paths below the root; and the newest mtime or ctime seen.
type treePrint struct {
	sum    []byte
	paths  []string
	newest time.Time
}

// printer accumulates a treePrint.
type printer struct {
	h   hash.Hash
	buf []byte
	tp  treePrint
}

func newPrinter() *printer { return &printer{h: sha256.New(), buf: make([]byte, 0, 128)} }

func (p *printer) add(rel string, fi fs.FileInfo) error {
	st := statOf(fi)
	b := append(p.buf[:0], rel...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint32(b, uint32(fi.Mode()))
	b = binary.LittleEndian.AppendUint64(b, uint64(fi.Size()))
	b = binary.LittleEndian.AppendUint64(b, uint64(fi.ModTime().UnixNano()))
	b = binary.LittleEndian.AppendUint64(b, uint64(st.ctime))
	b = binary.LittleEndian.AppendUint64(b, st.ino)
	b = binary.LittleEndian.AppendUint64(b, st.dev)
	b = binary.LittleEndian.AppendUint64(b, st.nlink)
	p.h.Write(b)
	p.buf = b
	if rel != "." {
		p.tp.paths = append(p.tp.paths, rel)
	}
	if t := fi.ModTime(); t.After(p.tp.newest) {
		p.tp.newest = t
	}
	if t := time.Unix(0, st.ctime); st.ctime != 0 && t.After(p.tp.newest) {
		p.tp.newest = t
	}
	return nil
}

func (p *printer) done() treePrint {
	p.tp.sum = p.h.Sum(nil)
	return p.tp
}

// fingerprint walks root (root itself included, as "."). ctime cannot be
// set by a user: an edit whose mtime and size were put back still shows.
func fingerprint(root string, rootInfo fs.FileInfo) (treePrint, error) {
	p := newPrinter()
	_ = p.add(".", rootInfo)
	if err := walkTree(root, p.add); err != nil {
		return treePrint{}, err
	}
	return p.done(), nil
}

// fingerprintPaths is fingerprint over a known list of paths (those of an
// earlier fingerprint) without reading directories: equal sums mean an
// unchanged tree, because adding, removing or renaming a node changes its
// directory's ctime, which the sum covers.
func fingerprintPaths(root string, rootInfo fs.FileInfo, paths []string) (treePrint, error) {
	p := newPrinter()
	_ = p.add(".", rootInfo)
	for _, rel := range paths {
		fi, err := os.Lstat(root + string(filepath.Separator) + filepath.FromSlash(rel))
		if err != nil {
			return treePrint{}, err
		}
		_ = p.add(rel, fi)
	}
	return p.done(), nil
}

// treeSums are the per-file sha256 sums of a tree, its executables and
// its symbolic links: what an h1 hash is made of.
type treeSums struct {
	files map[string][sha256.Size]byte
	exec  map[string]bool
	links map[string]bool
}

// hashTree reads every regular file under root once.
func hashTree(root string) (*treeSums, error) {
	s := &treeSums{files: map[string][sha256.Size]byte{}, exec: map[string]bool{}, links: map[string]bool{}}
	buf := make([]byte, 32<<10)
	err := walkTree(root, func(rel string, fi fs.FileInfo) error {
		if fi.IsDir() {
			return nil
		}
		if strings.ContainsAny(rel, "\n") {
			return &specialFileError{Path: fmt.Sprintf("%q", rel), What: "has a newline in its name"}
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, err := checkLink(root, rel)
			var le *LinkError
			if errors.As(err, &le) {
				return &specialFileError{Path: rel, What: "is a symbolic link to " + le.Target + " that " + le.Why}
			}
			if err != nil {
				return err
			}
			s.files[rel] = sha256.Sum256([]byte(target))
			s.links[rel] = true
			return nil
		}
		f, err := os.Open(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.CopyBuffer(h, struct{ io.Reader }{f}, buf); err != nil {
			return err
		}
		s.files[rel] = [sha256.Size]byte(h.Sum(nil))
		if fi.Mode()&0o111 != 0 {
			s.exec[rel] = true
		}
		return nil
	})
	return s, err
}

// h1 is HashDir's hash of the tree: dirhash.Hash1's summary lines over the
// files, plus the ExecEntry when any file is executable.
func (s *treeSums) h1() string {
	sums := make(map[string][sha256.Size]byte, len(s.files)+1)
	for k, v := range s.files {
		sums[k] = v
	}
	if len(s.exec) > 0 {
		sums[ExecEntry] = sha256.Sum256([]byte(strings.Join(sortedSet(s.exec), "\n") + "\n"))
	}
	if len(s.links) > 0 {
		sums[LinkEntry] = sha256.Sum256([]byte(strings.Join(sortedSet(s.links), "\n") + "\n"))
	}
	names := make([]string, 0, len(sums))
	for k := range sums {
		names = append(names, k)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%x  %s\n", sums[n], n)
	}
	return "h1:" + base64.StdEncoding.EncodeToString(h.Sum(nil))
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// hint is the text kept in Verifier.Hints for an entry that verified: one
// line "<hex sha256>  <path>" per file, then "x <path>" per executable.
func (s *treeSums) hint() []byte {
	var b bytes.Buffer
	names := make([]string, 0, len(s.files))
	for k := range s.files {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "%x  %s\n", s.files[n], n)
	}
	for _, n := range sortedSet(s.exec) {
		fmt.Fprintf(&b, "x %s\n", n)
	}
	for _, n := range sortedSet(s.links) {
		fmt.Fprintf(&b, "l %s\n", n)
	}
	return b.Bytes()
}

func parseHint(data []byte) *treeSums {
	s := &treeSums{files: map[string][sha256.Size]byte{}, exec: map[string]bool{}, links: map[string]bool{}}
	for _, line := range strings.Split(string(data), "\n") {
		if name, ok := strings.CutPrefix(line, "x "); ok {
			s.exec[name] = true
			continue
		}
		if name, ok := strings.CutPrefix(line, "l "); ok {
			s.links[name] = true
			continue
		}
		sum, name, ok := strings.Cut(line, "  ")
		raw, err := hex.DecodeString(sum)
		if !ok || err != nil || len(raw) != sha256.Size {
			continue
		}
		s.files[name] = [sha256.Size]byte(raw)
	}
	return s
}

// differences lists what changed from old to s, sorted by path.
func (s *treeSums) differences(old *treeSums) []string {
	seen := map[string]bool{}
	for k := range s.files {
		seen[k] = true
	}
	for k := range old.files {
		seen[k] = true
	}
	var out []string
	for _, k := range sortedSet(seen) {
		now, inNew := s.files[k]
		was, inOld := old.files[k]
		switch {
		case !inOld:
			out = append(out, "added "+k)
		case !inNew:
			out = append(out, "removed "+k)
		case now != was:
			out = append(out, "changed "+k)
		case s.exec[k] != old.exec[k]:
			out = append(out, "executable bit of "+k+" changed")
		case s.links[k] != old.links[k]:
			out = append(out, k+" changed between a file and a symbolic link")
		}
	}
	return out
}

// diff describes how entry's files differ from the last time they
// verified: the first difference and how many more. "" when unknown.
func (v *Verifier) diff(entry string, now *treeSums) string {
	data, err := os.ReadFile(filepath.Join(v.Hints, entry))
	if err != nil {
		return ""
	}
	d := now.differences(parseHint(data))
	switch len(d) {
	case 0:
		return ""
	case 1:
		return d[0]
	}
	return fmt.Sprintf("%s (and %d more)", d[0], len(d)-1)
}

// writeHint records the file sums of an entry that verified, for diff.
func (v *Verifier) writeHint(entry string, s *treeSums) {
	p := filepath.Join(v.Hints, entry)
	data := s.hint()
	if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, data) {
		return
	}
	_ = WriteFile(p, data, PermPrivate)
}

// pruneHints removes the hints of entries that left the store.
func (v *Verifier) pruneHints() {
	des, err := os.ReadDir(v.Hints)
	if err != nil {
		return
	}
	for _, d := range des {
		if _, err := os.Lstat(v.CAS.EntryDir(d.Name())); os.IsNotExist(err) {
			_ = os.Remove(filepath.Join(v.Hints, d.Name()))
		}
	}
}
