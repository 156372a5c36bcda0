package store

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"
)

// Pin is a store entry as ollm.lock pins it: a name and its h1 hash.
type Pin struct{ Name, Hash string }

// TamperedError is a store entry whose files no longer hash to what
// ollm.lock pins: they changed after the entry was installed (and its hooks
// approved). It is a security error; nothing of the entry may be used.
type TamperedError struct {
	Name string // extension or team profile
	Dir  string // the store entry
	Want string // the hash ollm.lock pins
	Got  string // the hash of the files now; "" when they could not be hashed
	Diff string // what differs, when known: "changed hooks/run.sh"
}

func (e *TamperedError) Error() string {
	got := e.Got
	if got == "" {
		got = "(cannot be hashed)"
	}
	msg := fmt.Sprintf("store entry %s does not match ollm.lock\n"+
		"\tentry:     %s\n\tollm.lock: %s\n\tstore:     %s\n", e.Name, e.Dir, e.Want, got)
	if e.Diff != "" {
		msg += "\tdiffers:   " + e.Diff + "\n"
	}
	return msg + "\nSECURITY ERROR\n" +
		"The entry's files changed after it was installed and approved. Nothing\n" +
		"was loaded from it and none of its hooks ran. Run `ollm profile apply`:\n" +
		"it sets the entry aside and fetches it again."
}

// verifyMargin is how recent a change may be for its fingerprint to be
// cached: file times come from a coarse clock, so a change within the same
// tick as the fingerprint could go unnoticed (git's "racy" index entries).
const verifyMargin = time.Second

// Verifier checks store entries against the hashes ollm.lock pins, every
// time something is about to use them. Re-hashing every entry would cost
// milliseconds per entry, so it keeps a cache in the store (Cache) that maps
// each entry to a stat fingerprint of its tree (paths, sizes, modes, mtimes,
// ctimes, inodes) and re-hashes only an entry whose fingerprint changed.
//
// The cache sits in the store, so whoever can edit an entry can edit the
// cache too. Each record is therefore an HMAC over the entry's name, hash
// and fingerprint, keyed by a random key kept outside the store (Key): a
// forged record needs that key and a fingerprint equal to the real files'
// (which includes ctimes no one can set back). Without a key (it cannot be
// read or created) nothing is cached and every use re-hashes.
type Verifier struct {
	CAS   *CAS
	Cache string // <store>/.verified: entry -> keyed fingerprint (verify_cache.go)
	Hints string // <store>/.verified.d: each entry's file hashes, to say what changed
	Key   string // the cache's HMAC key, outside the store (0600)
	Now   func() time.Time

	once     sync.Once
	mu       sync.Mutex
	key      []byte
	records  map[string]verifyRecord
	rehashed int // entries hashed in full (tests, benchmarks)
}

// StoreKey is the key of the store's verification cache. It lives outside
// the store: see Verifier.
func (h Home) StoreKey() string { return h.path("state", "store-verify.key") }

// NewVerifier returns the verifier of cas with its cache in the store and
// its key in keyFile (Home.StoreKey()).
func NewVerifier(cas *CAS, keyFile string) *Verifier {
	return &Verifier{
		CAS:   cas,
		Cache: filepath.Join(cas.Dir, ".verified"),
		Hints: filepath.Join(cas.Dir, ".verified.d"),
		Key:   keyFile,
	}
}

// Verify returns the store directory of each pin, in order, after checking
// that its files hash to the pin's hash. A pin whose entry is absent gets
// "" (the caller decides whether that matters); an entry that differs is a
// *TamperedError, and then no directory is returned. Entries are checked in
// parallel; the error reported is the first pin's in order.
func (v *Verifier) Verify(pins []Pin) ([]string, error) {
	if len(pins) == 0 {
		return nil, nil
	}
	v.once.Do(v.load)
	dirs := make([]string, len(pins))
	recs := make([]*verifyRecord, len(pins))
	errs := make([]error, len(pins))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(len(pins), runtime.GOMAXPROCS(0)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				dirs[i], recs[i], errs[i] = v.verify(pins[i])
			}
		}()
	}
	for i := range pins {
		next <- i
	}
	close(next)
	wg.Wait()
	fresh := map[string]verifyRecord{}
	for i, err := range errs {
		if err != nil {
			return nil, err
		}
		if recs[i] != nil {
			key, _ := EntryName(pins[i].Hash, pins[i].Name)
			fresh[key] = *recs[i]
		}
	}
	if len(fresh) > 0 {
		v.save(fresh)
	}
	return dirs, nil
}

// verify checks one pin: from its cached fingerprint when that still
// matches the files, else by hashing them. rec is a new cache record when
// the entry was hashed and its fingerprint may be cached.
func (v *Verifier) verify(p Pin) (dir string, rec *verifyRecord, err error) {
	dir, err = v.CAS.Path(p.Hash, p.Name)
	if err != nil {
		return "", nil, err
	}
	if err := v.CAS.Migrate(p.Hash, p.Name); err != nil {
		return "", nil, err
	}
	entry, _ := EntryName(p.Hash, p.Name)
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil, nil
	case err != nil:
		return "", nil, fmt.Errorf("store entry %s: %w", p.Name, err)
	case !fi.IsDir():
		return "", nil, &TamperedError{Name: p.Name, Dir: dir, Want: p.Hash, Diff: "the entry is " + modeKind(fi.Mode()) + ", not a directory"}
	}
	if old, ok := v.record(entry, p.Hash); ok {
		if fp, err := fingerprintPaths(dir, fi, old.Paths); err == nil && hmac.Equal([]byte(old.MAC), []byte(v.mac(entry, p.Hash, fp.sum))) {
			return dir, nil, nil
		}
	}
	return v.rehash(p, dir, fi)
}

// rehash hashes an entry's files and compares them with the pin.
func (v *Verifier) rehash(p Pin, dir string, fi fs.FileInfo) (string, *verifyRecord, error) {
	v.mu.Lock()
	v.rehashed++
	v.mu.Unlock()
	entry, _ := EntryName(p.Hash, p.Name)
	start := v.now()
	fp, err := fingerprint(dir, fi)
	if err != nil {
		return "", nil, v.treeErr(p, dir, err)
	}
	sums, err := hashTree(dir)
	if err != nil {
		return "", nil, v.treeErr(p, dir, err)
	}
	if got := sums.h1(); got != p.Hash {
		return "", nil, &TamperedError{Name: p.Name, Dir: dir, Want: p.Hash, Got: got, Diff: v.diff(entry, sums)}
	}
	v.writeHint(entry, sums)
	// Cache only a tree that did not change while it was hashed and whose
	// last change is older than the clock's resolution.
	mac := v.mac(entry, p.Hash, fp.sum)
	fi2, err1 := os.Lstat(dir)
	if mac == "" || err1 != nil || fp.newest.After(start.Add(-verifyMargin)) {
		return dir, nil, nil
	}
	if again, err := fingerprint(dir, fi2); err != nil || !bytes.Equal(again.sum, fp.sum) {
		return dir, nil, nil
	}
	return dir, &verifyRecord{Hash: p.Hash, MAC: mac, Paths: fp.paths}, nil
}

// treeErr reports a tree that cannot be walked or hashed: a special file
// (a symlink put into the store) is tampering, anything else an error.
func (v *Verifier) treeErr(p Pin, dir string, err error) error {
	var se *specialFileError
	if errors.As(err, &se) {
		return &TamperedError{Name: p.Name, Dir: dir, Want: p.Hash, Diff: se.Error()}
	}
	return fmt.Errorf("verifying store entry %s (%s): %w", p.Name, dir, err)
}

func (v *Verifier) now() time.Time {
	if v.Now != nil {
		return v.Now()
	}
	return time.Now()
}

// record is the cache record of entry at hash, when there is a key to
// check it with.
func (v *Verifier) record(entry, hash string) (verifyRecord, bool) {
	if len(v.key) == 0 {
		return verifyRecord{}, false
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	r, ok := v.records[entry]
	return r, ok && r.Hash == hash
}

// mac is the cache record of (entry, hash, fingerprint); "" without a key.
func (v *Verifier) mac(entry, hash string, fp []byte) string {
	if len(v.key) == 0 {
		return ""
	}
	m := hmac.New(newSHA256, v.key)
	fmt.Fprintf(m, "ollm-store-verify-%d\x00%s\x00%s\x00", verifyCacheVersion, entry, hash)
	m.Write(fp)
	return hex.EncodeToString(m.Sum(nil))
}

// load reads the key (creating it on first use) and the cache. Either may
// be missing or unreadable: verification then re-hashes.
func (v *Verifier) load() {
	v.key = readOrCreateKey(v.Key)
	if data, err := os.ReadFile(v.Cache); err == nil {
		v.records = parseCache(data)
	}
}

// save merges fresh records into the cache file, under its lock, and drops
// the records (and hints) of entries that left the store. A failure only
// costs a re-hash next time.
func (v *Verifier) save(fresh map[string]verifyRecord) {
	v.mu.Lock()
	if v.records == nil {
		v.records = map[string]verifyRecord{}
	}
	for k, r := range fresh {
		v.records[k] = r
	}
	v.mu.Unlock()
	unlock, err := Lock(v.Cache)
	if err != nil {
		return
	}
	defer unlock()
	recs := map[string]verifyRecord{}
	if data, err := os.ReadFile(v.Cache); err == nil {
		recs = parseCache(data)
	}
	for k, r := range fresh {
		recs[k] = r
	}
	for k := range recs {
		if _, err := os.Lstat(v.CAS.EntryDir(k)); errors.Is(err, fs.ErrNotExist) {
			delete(recs, k)
		}
	}
	_ = WriteFile(v.Cache, formatCache(recs), PermPrivate)
	v.pruneHints()
}

// readOrCreateKey returns the 32-byte key in path, creating it (0600) when
// it does not exist. The key appears by link(2), so a concurrent reader
// never sees a partial file. It returns nil when neither works.
func readOrCreateKey(path string) []byte {
	if path == "" {
		return nil
	}
	if k, err := os.ReadFile(path); err == nil {
		if len(k) == 32 {
			return k
		}
		return nil
	}
	var k [32]byte
	if _, err := rand.Read(k[:]); err != nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".store-verify-*")
	if err != nil {
		return nil
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write(k[:])
	if err := tmp.Close(); err != nil || werr != nil {
		return nil
	}
	_ = os.Link(tmp.Name(), path) // fails when another process won: read theirs
	if got, err := os.ReadFile(path); err == nil && len(got) == 32 {
		return got
	}
	return nil
}
