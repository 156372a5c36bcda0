package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// target is one platform of the release.
type target struct {
	goos, goarch string
	cgo          bool
}

var targets = []target{
	{"linux", "amd64", true},
	{"linux", "arm64", true},
	{"darwin", "amd64", false},
	{"darwin", "arm64", false},
}

// file is one entry of an archive.
type file struct {
	name string // path inside the archive
	mode int64
	data []byte
}

func main() {
	out := flag.String("o", "dist", "directory the archives and SHA256SUMS are written to")
	version := flag.String("version", "", "version stamped into the binary and the archive names (git describe)")
	date := flag.Int64("date", 0, "modification time of every archive entry, in Unix seconds (the commit's date)")
	only := flag.String("targets", "", "comma-separated os/arch to build (default: all four)")
	flag.Parse()
	if *version == "" || *date == 0 {
		fmt.Fprintln(os.Stderr, "release: -version and -date are required (make release sets them from git)")
		os.Exit(2)
	}
	if err := run(*out, *version, time.Unix(*date, 0).UTC(), *only); err != nil {
		fmt.Fprintf(os.Stderr, "release: %v\n", err)
		os.Exit(1)
	}
}

func run(out, version string, mtime time.Time, only string) error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	var docs []file
	for _, name := range []string{"LICENSE", "README.md"} {
		b, err := os.ReadFile(filepath.Join(root, name))
		if errors.Is(err, fs.ErrNotExist) && name == "LICENSE" {
			continue
		}
		if err != nil {
			return err
		}
		docs = append(docs, file{name: name, mode: 0o644, data: b})
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "ollm-release")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	sums := map[string][sha256.Size]byte{}
	for _, t := range targets {
		if only != "" && !slices.Contains(strings.Split(only, ","), t.goos+"/"+t.goarch) {
			continue
		}
		bin := filepath.Join(work, t.goos+"-"+t.goarch, "ollm")
		if err := build(root, bin, version, t); err != nil {
			return err
		}
		b, err := os.ReadFile(bin)
		if err != nil {
			return err
		}
		base := "ollm_" + version + "_" + t.goos + "_" + t.goarch
		files := append([]file{{name: "ollm", mode: 0o755, data: b}}, docs...)
		arc, err := archive(base, files, mtime)
		if err != nil {
			return err
		}
		name := base + ".tar.gz"
		if err := os.WriteFile(filepath.Join(out, name), arc, 0o644); err != nil {
			return err
		}
		sums[name] = sha256.Sum256(arc)
		fmt.Printf("%s\n", filepath.Join(out, name))
	}
	return os.WriteFile(filepath.Join(out, "SHA256SUMS"), sumsFile(sums), 0o644)
}

// build compiles cmd/ollm for t into bin.
func build(root, bin, version string, t target) error {
	ldflags := []string{"-s", "-w", "-buildid=", "-X", "github.com/ollm/ollm/cmd/cli.Version=" + version}
	args := []string{"build", "-trimpath", "-buildvcs=false"}
	env := append(os.Environ(), "GOOS="+t.goos, "GOARCH="+t.goarch, "GOFLAGS=")
	if !t.cgo {
		env = append(env, "CGO_ENABLED=0")
	} else {
		cc, err := compiler(t)
		if err != nil {
			return err
		}
		// Static, so the binary does not depend on the C library of the
		// machine that built it; netgo and osusergo keep the C library's
		// resolver and user lookup out, which cannot be linked statically.
		args = append(args, "-tags", "netgo,osusergo")
		ldflags = append(ldflags, "-linkmode=external", "-extldflags=-static")
		env = append(env, "CGO_ENABLED=1", "CC="+cc)
	}
	args = append(args, "-ldflags", strings.Join(ldflags, " "), "-o", bin, "./cmd/ollm")
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = root, env, os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building %s/%s: go %s: %w", t.goos, t.goarch, strings.Join(args, " "), err)
	}
	return nil
}

// compiler is the C compiler for a cgo target.
func compiler(t target) (string, error) {
	if t.goos == runtime.GOOS && t.goarch == runtime.GOARCH {
		if cc := os.Getenv("CC"); cc != "" {
			return cc, nil
		}
		return "gcc", nil
	}
	env := "CC_" + strings.ToUpper(t.goos+"_"+t.goarch)
	cc := os.Getenv(env)
	if cc == "" && t.goos == "linux" && t.goarch == "arm64" {
		cc = "aarch64-linux-gnu-gcc"
	}
	if cc == "" {
		return "", fmt.Errorf("no C compiler for %s/%s: set %s", t.goos, t.goarch, env)
	}
	if _, err := exec.LookPath(cc); err != nil {
		return "", fmt.Errorf("building %s/%s needs the C cross compiler %s (the sandbox's trampoline is C): install it (Debian: sudo apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross) or name another with %s=...", t.goos, t.goarch, cc, env)
	}
	return cc, nil
}

// archive is a gzipped tar of files under the directory base/, the same
// bytes for the same files whatever the order they come in, the machine or
// the user: sorted names, mtime for every entry, no owner, no gzip time.
func archive(base string, files []file, mtime time.Time) ([]byte, error) {
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b file) int { return strings.Compare(a.name, b.name) })
	var buf bytes.Buffer
	gz, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(gz)
	hdr := func(h *tar.Header) error {
		h.ModTime, h.Format = mtime, tar.FormatUSTAR
		h.Uid, h.Gid, h.Uname, h.Gname = 0, 0, "", ""
		return tw.WriteHeader(h)
	}
	if err := hdr(&tar.Header{Typeflag: tar.TypeDir, Name: base + "/", Mode: 0o755}); err != nil {
		return nil, err
	}
	for _, f := range files {
		if err := hdr(&tar.Header{Typeflag: tar.TypeReg, Name: base + "/" + f.name, Mode: f.mode, Size: int64(len(f.data))}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// sumsFile is SHA256SUMS in the format sha256sum -c reads, sorted by name.
func sumsFile(sums map[string][sha256.Size]byte) []byte {
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		s := sums[n]
		b.WriteString(hex.EncodeToString(s[:]) + "  " + n + "\n")
	}
	return []byte(b.String())
}
