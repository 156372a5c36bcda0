package ansi

// ollm patch: this file replaces glamour's use of bluemonday (context.go).

import (
	"io"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// skipContent are the elements whose content bluemonday's StrictPolicy
// drops along with the tags (its addDefaultSkipElementContent).
var skipContent = map[string]bool{
	"frame": true, "frameset": true, "iframe": true, "noembed": true,
	"noframes": true, "noscript": true, "nostyle": true, "object": true,
	"script": true, "style": true, "title": true,
}

// StripHTML returns s with every tag, comment and doctype removed, the
// content of script, style and the skipContent elements dropped, and the
// remaining text HTML-escaped: bluemonday.StrictPolicy().Sanitize(s),
// step for step (bluemonday v1.0.27 sanitize.go with no element allowed).
func StripHTML(s string) string {
	if strings.TrimSpace(s) == "" {
		return s
	}
	var (
		b                        strings.Builder
		skipElementContent       bool
		skippingElementsCount    int64
		mostRecentlyStartedToken string
	)
	tokenizer := html.NewTokenizer(strings.NewReader(s))
	for {
		if tokenizer.Next() == html.ErrorToken {
			if tokenizer.Err() == io.EOF {
				return b.String()
			}
			return ""
		}
		token := tokenizer.Token()
		switch token.Type {
		case html.StartTagToken:
			mostRecentlyStartedToken = normaliseElementName(token.Data)
			switch normaliseElementName(token.Data) {
			case "script", "style":
				continue
			}
			if skipContent[token.Data] {
				skipElementContent = true
				skippingElementsCount++
			}
		case html.EndTagToken:
			if mostRecentlyStartedToken == normaliseElementName(token.Data) {
				mostRecentlyStartedToken = ""
			}
			switch normaliseElementName(token.Data) {
			case "script", "style":
				continue
			}
			if skipContent[token.Data] {
				skippingElementsCount--
				if skippingElementsCount == 0 {
					skipElementContent = false
				}
			}
		case html.TextToken:
			if !skipElementContent {
				switch mostRecentlyStartedToken {
				case "script", "style":
				default:
					b.WriteString(token.String())
				}
			}
		}
	}
}

// normaliseElementName is bluemonday's.
func normaliseElementName(str string) string {
	return strings.TrimSuffix(strings.TrimPrefix(strings.ToLower(strconv.QuoteToASCII(str)), `"`), `"`)
}
