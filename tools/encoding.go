package tools

import (
	"bytes"
	"net/http"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Encoding is a text file's byte encoding, kept across edits.
type Encoding string

const (
	UTF8    Encoding = "utf-8"
	UTF8BOM Encoding = "utf-8-bom"
	UTF16LE Encoding = "utf-16le"
	UTF16BE Encoding = "utf-16be"
)

// Text is a decoded text file: its body as UTF-8 with "\n" line endings,
// and what is needed to write it back byte for byte the same way.
type Text struct {
	Encoding Encoding
	CRLF     bool // every line ended in "\r\n"
	Body     string
}

var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16LE = []byte{0xFF, 0xFE}
	bomUTF16BE = []byte{0xFE, 0xFF}
)

// sniffLen is how much of a file decides whether it is binary.
const sniffLen = 8000

// DecodeText decodes b. ok is false for binary (or non-UTF-8) content.
func DecodeText(b []byte) (t Text, ok bool) {
	switch {
	case bytes.HasPrefix(b, bomUTF8):
		t.Encoding, b = UTF8BOM, b[3:]
	case bytes.HasPrefix(b, bomUTF16LE):
		return decodeUTF16(b[2:], UTF16LE)
	case bytes.HasPrefix(b, bomUTF16BE):
		return decodeUTF16(b[2:], UTF16BE)
	default:
		t.Encoding = UTF8
	}
	if IsBinary(b) {
		return Text{}, false
	}
	return withLineEndings(t, string(b)), true
}

// IsBinary reports whether b looks like binary data: a NUL byte or invalid
// UTF-8 in its first 8000 bytes.
func IsBinary(b []byte) bool {
	s := b[:min(len(b), sniffLen)]
	if bytes.IndexByte(s, 0) >= 0 {
		return true
	}
	for i := 0; i < 3 && len(s) > 0 && len(s) < len(b); i++ {
		r, _ := utf8.DecodeLastRune(s) // don't judge a rune cut at the sniff boundary
		if r != utf8.RuneError {
			break
		}
		s = s[:len(s)-1]
	}
	return !utf8.Valid(s)
}

func decodeUTF16(b []byte, enc Encoding) (Text, bool) {
	if len(b)%2 != 0 {
		return Text{}, false
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		if enc == UTF16LE {
			u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
		} else {
			u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
		}
	}
	return withLineEndings(Text{Encoding: enc}, string(utf16.Decode(u))), true
}

func withLineEndings(t Text, s string) Text {
	crlf := strings.Count(s, "\r\n")
	if crlf > 0 && crlf == strings.Count(s, "\n") {
		t.CRLF = true
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	t.Body = s
	return t
}

// Encode writes body back in t's encoding and line endings.
func (t Text) Encode(body string) []byte {
	if t.CRLF {
		body = strings.ReplaceAll(body, "\n", "\r\n")
	}
	switch t.Encoding {
	case UTF8BOM:
		return append(append([]byte{}, bomUTF8...), body...)
	case UTF16LE, UTF16BE:
		u := utf16.Encode([]rune(body))
		out := make([]byte, 2, 2+2*len(u))
		if t.Encoding == UTF16LE {
			copy(out, bomUTF16LE)
			for _, c := range u {
				out = append(out, byte(c), byte(c>>8))
			}
		} else {
			copy(out, bomUTF16BE)
			for _, c := range u {
				out = append(out, byte(c>>8), byte(c))
			}
		}
		return out
	default:
		return []byte(body)
	}
}

// Describe is a short note for the model, empty for plain UTF-8 with "\n".
func (t Text) Describe() string {
	var parts []string
	if t.Encoding != UTF8 {
		parts = append(parts, "encoding "+string(t.Encoding))
	}
	if t.CRLF {
		parts = append(parts, "CRLF line endings")
	}
	return strings.Join(parts, ", ")
}

// contentType names binary content for the message a binary file gets.
func contentType(b []byte) string {
	return http.DetectContentType(b[:min(len(b), 512)])
}
