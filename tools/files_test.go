package tools

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/tool"
)

func TestEncodingRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		raw  []byte
		enc  Encoding
		crlf bool
		body string
	}{
		{"utf8", []byte("a\nb\n"), UTF8, false, "a\nb\n"},
		{"utf8 bom", append([]byte{0xEF, 0xBB, 0xBF}, "héllo\n"...), UTF8BOM, false, "héllo\n"},
		{"crlf", []byte("a\r\nb\r\n"), UTF8, true, "a\nb\n"},
		{"mixed endings stay as they are", []byte("a\r\nb\n"), UTF8, false, "a\r\nb\n"},
		{"utf16le", []byte{0xFF, 0xFE, 'h', 0, 'i', 0, '\r', 0, '\n', 0}, UTF16LE, true, "hi\n"},
		{"utf16be", []byte{0xFE, 0xFF, 0, 'h', 0xD8, 0x3D, 0xDE, 0x00, 0, '\n'}, UTF16BE, false, "h😀\n"},
	}
	for _, tt := range tests {
		got, ok := DecodeText(tt.raw)
		if !ok || got.Encoding != tt.enc || got.CRLF != tt.crlf || got.Body != tt.body {
			t.Errorf("%s: DecodeText = %+v, %v", tt.name, got, ok)
			continue
		}
		if back := got.Encode(got.Body); !bytes.Equal(back, tt.raw) {
			t.Errorf("%s: Encode = %x, want %x", tt.name, back, tt.raw)
		}
	}
	for _, bin := range [][]byte{{0x89, 'P', 'N', 'G', 0, 0}, {'a', 0xff, 0xfe, 0xfd, 'b'}} {
		if _, ok := DecodeText(bin); ok {
			t.Errorf("DecodeText(%x) took binary for text", bin)
		}
	}
	// A multi-byte rune cut by the sniff boundary is still text.
	long := strings.Repeat("a", sniffLen-1) + "é" + "tail"
	if _, ok := DecodeText([]byte(long)); !ok {
		t.Error("a rune split at the sniff boundary made the file binary")
	}
}

func TestReadFile(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.MaxFile = 100 })
	f.write(map[string]string{"five.txt": "1\n2\n3\n4\n5\n", "big.txt": strings.Repeat("x", 101), "crlf.txt": "a\r\nb\r\n"})
	os.WriteFile(filepath.Join(f.root, "img.png"), []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), 0o644)
	os.WriteFile(filepath.Join(f.root, "u16.txt"), []byte{0xFF, 0xFE, 'o', 0, 'k', 0, '\n', 0}, 0o644)
	tests := []struct{ params, want string }{
		{`{"path":"five.txt"}`, "1\n2\n3\n4\n5\n"},
		{`{"path":"five.txt","startLine":4}`, "[lines 4-5 of 5]\n4\n5\n"},
		{`{"path":"five.txt","endLine":2}`, "[lines 1-2 of 5]\n1\n2\n"},
		{`{"path":"five.txt","startLine":2,"endLine":3}`, "[lines 2-3 of 5]\n2\n3\n"},
		{`{"path":"five.txt","startLine":3,"endLine":3}`, "[lines 3-3 of 5]\n3\n"},
		{`{"path":"five.txt","startLine":4,"endLine":99}`, "[lines 4-5 of 5]\n4\n5\n"},
		{`{"path":"crlf.txt"}`, "[CRLF line endings]\na\nb\n"},
		{`{"path":"u16.txt"}`, "[encoding utf-16le]\nok\n"},
		{`{"path":"img.png"}`, "img.png is a binary file (image/png, 16 bytes); its content is not shown"},
	}
	for _, tt := range tests {
		if got := f.ok("read_file", tt.params); got != tt.want {
			t.Errorf("read_file %s = %q, want %q", tt.params, got, tt.want)
		}
	}
	f.fails("read_file", `{"path":"nope.txt"}`, tool.ErrNotFound, "file not found: nope.txt")
	f.fails("read_file", `{"path":"big.txt"}`, tool.ErrTooLarge, "big.txt is too large (101 bytes, the limit is 100)")
	f.fails("read_file", `{"path":"five.txt","startLine":9}`, tool.ErrInvalidParams, "startLine 9 is past the end of the file (5 lines)")
	f.fails("read_file", `{"path":"five.txt","startLine":3,"endLine":2}`, tool.ErrInvalidParams, "startLine 3 is after endLine 2")
	f.fails("read_file", `{"path":"five.txt","startLine":0}`, tool.ErrInvalidParams, `parameter "startLine"`)
	f.fails("read_file", `{}`, tool.ErrInvalidParams, `missing property 'path'`)
	if c := f.build("read_file", `{"path":"five.txt"}`).Confirmation(); c.Kind != tool.KindRead || c.Risk != tool.RiskLow || c.Locations[0] != filepath.Join(f.root, "five.txt") {
		t.Fatalf("confirmation %+v", c)
	}
}

func TestReadManyFiles(t *testing.T) {
	f := newFixture(t)
	f.write(map[string]string{"a.go": "package a\n", "sub/b.go": "package b\n", "sub/c.txt": "c\n", "ignored/d.go": "package d\n", ".gitignore": "ignored/\n"})
	got := f.ok("read_many_files", `{"paths":["**/*.go","sub/c.txt","a.go"]}`)
	want := "--- a.go ---\npackage a\n\n--- sub/b.go ---\npackage b\n\n--- sub/c.txt ---\nc\n\n"
	if got != want {
		t.Fatalf("read_many_files = %q, want %q", got, want)
	}
	got = f.ok("read_many_files", `{"paths":["a.go","missing.go"],"maxFiles":1}`)
	if got != "--- a.go ---\npackage a\n\n[1 more files not read: maxFiles=1]\n" {
		t.Fatalf("read_many_files with a missing file and maxFiles=1 = %q", got)
	}
	got = f.ok("read_many_files", `{"paths":["a.go","missing.go"]}`)
	if !strings.Contains(got, "--- missing.go ---\n[not_found: file not found: missing.go") {
		t.Fatalf("read_many_files with a missing file = %q", got)
	}
	f.fails("read_many_files", `{"paths":["nothing/*.zz"]}`, tool.ErrNotFound, "no files matched")
}

func TestWriteFile(t *testing.T) {
	f := newFixture(t)
	res := f.call("write_file", `{"path":"deep/new/dir/a.txt","content":"hello\n"}`)
	if res.Error != nil || f.read("deep/new/dir/a.txt") != "hello\n" || len(res.Files) != 1 || res.Files[0] != filepath.Join(f.root, "deep/new/dir/a.txt") {
		t.Fatalf("create = %+v", res)
	}
	f.fails("write_file", `{"path":"deep/new/dir/a.txt","content":"other"}`, tool.ErrExists, "already exists; pass overwrite: true")
	if f.read("deep/new/dir/a.txt") != "hello\n" {
		t.Fatal("refused write changed the file")
	}
	inv := f.build("write_file", `{"path":"deep/new/dir/a.txt","content":"bye\n","overwrite":true}`)
	c := inv.Confirmation()
	if c.Kind != tool.KindEdit || c.Risk != tool.RiskMedium || !strings.Contains(c.Diff, "-hello\n+bye\n") || !strings.Contains(string(c.Params), `"overwrite":true`) {
		t.Fatalf("confirmation = %+v", c)
	}
	f.ok("write_file", `{"path":"deep/new/dir/a.txt","content":"bye\n","overwrite":true}`)
	if f.read("deep/new/dir/a.txt") != "bye\n" {
		t.Fatal("overwrite did not replace the content")
	}
	leftovers, _ := filepath.Glob(filepath.Join(f.root, "deep/new/dir/*"))
	if len(leftovers) != 1 {
		t.Fatalf("atomic write left files behind: %v", leftovers)
	}
}

func TestEditFile(t *testing.T) {
	f := newFixture(t)
	f.write(map[string]string{"m.go": "package m\n\nfunc A() int { return 1 }\n\nfunc B() int { return 1 }\n"})
	inv := f.build("edit_file", `{"path":"m.go","edits":[{"oldText":"A() int { return 1 }","newText":"A() int { return 2 }"},{"oldText":"func B","newText":"func Bee"}]}`)
	diff := inv.Confirmation().Diff
	wantDiff := "--- a/m.go\n+++ b/m.go\n@@ -1,5 +1,5 @@\n package m\n \n-func A() int { return 1 }\n+func A() int { return 2 }\n \n-func B() int { return 1 }\n+func Bee() int { return 1 }\n"
	if diff != wantDiff {
		t.Fatalf("diff =\n%s\nwant\n%s", diff, wantDiff)
	}
	res, _ := inv.Execute(t.Context(), nil)
	if res.Error != nil || f.read("m.go") != "package m\n\nfunc A() int { return 2 }\n\nfunc Bee() int { return 1 }\n" || res.Files[0] != filepath.Join(f.root, "m.go") {
		t.Fatalf("edit = %+v\n%s", res, f.read("m.go"))
	}
	f.fails("edit_file", `{"path":"m.go","edits":[{"oldText":"package m","newText":"package n"},{"oldText":"nope","newText":"x"}]}`, tool.ErrInvalidParams, "edits[1]: oldText was not found")
	f.fails("edit_file", `{"path":"m.go","edits":[{"oldText":"int { return","newText":"x"}]}`, tool.ErrInvalidParams, "edits[0]: oldText matches 2 times")
	f.fails("edit_file", `{"path":"m.go","edits":[{"oldText":"","newText":"x"}]}`, tool.ErrInvalidParams, "edits[0]: oldText is empty")
	if !strings.HasPrefix(f.read("m.go"), "package m\n") {
		t.Fatal("a failed edit wrote part of its changes")
	}
	f.fails("edit_file", `{"path":"m.go","edits":[]}`, tool.ErrInvalidParams, `parameter "edits"`)
}

func TestEditFileKeepsEncoding(t *testing.T) {
	f := newFixture(t)
	files := map[string][]byte{
		"crlf.txt": []byte("one\r\ntwo\r\nthree\r\n"),
		"bom.txt":  append([]byte{0xEF, 0xBB, 0xBF}, "one\ntwo\n"...),
		"u16.txt":  Text{Encoding: UTF16LE, CRLF: true}.Encode("one\ntwo\n"),
		"u16be":    Text{Encoding: UTF16BE}.Encode("one\ntwo\n"),
	}
	for name, data := range files {
		os.WriteFile(filepath.Join(f.root, name), data, 0o600)
		f.ok("edit_file", `{"path":"`+name+`","edits":[{"oldText":"one\ntwo","newText":"uno\ndos"}]}`)
		raw, _ := os.ReadFile(filepath.Join(f.root, name))
		before, _ := DecodeText(data)
		after, ok := DecodeText(raw)
		if !ok || after.Encoding != before.Encoding || after.CRLF != before.CRLF || !strings.HasPrefix(after.Body, "uno\ndos\n") {
			t.Errorf("%s: after edit %+v (was %+v)", name, after, before)
		}
		if fi, _ := os.Stat(filepath.Join(f.root, name)); fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v after edit, want 0600", name, fi.Mode().Perm())
		}
	}
}

func TestUnifiedDiffHunks(t *testing.T) {
	var old, new []string
	for i := 1; i <= 20; i++ {
		old = append(old, strings.Repeat("l", i))
	}
	new = append(new, old...)
	new[1] = "changed2"
	new[17] = "changed18"
	got := unifiedDiff("f", strings.Join(old, "\n")+"\n", strings.Join(new, "\n")+"\n")
	if strings.Count(got, "@@ -") != 2 || !strings.Contains(got, "@@ -1,5 +1,5 @@") || !strings.Contains(got, "@@ -15,6 +15,6 @@") {
		t.Fatalf("diff:\n%s", got)
	}
	if unifiedDiff("f", "same", "same") != "" {
		t.Fatal("identical texts gave a diff")
	}
	if got := unifiedDiff("f", "", "a\nb\n"); got != "--- a/f\n+++ b/f\n@@ -0,0 +1,2 @@\n+a\n+b\n" {
		t.Fatalf("new file diff:\n%q", got)
	}
}
