package ext

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/ollm/ollm/internal/secrets"
	"github.com/ollm/ollm/schema"
)

// Setting sources.
const (
	FromProfile = "profile"
	FromEnv     = "env"
	FromDefault = "default"
	Unset       = "unset"
)

// Value is one resolved extension setting.
type Value struct {
	Def    schema.Setting `json:"-"`
	Name   string         `json:"name"`
	Value  any            `json:"value,omitempty"` // nil when unset
	Source string         `json:"source"`          // profile | env | default | unset
	EnvVar string         `json:"envVar"`          // the variable hooks and servers receive
}

// SettingError is a setting that is missing or invalid. Its message names
// the extension, the setting and where to set it, and never the value of
// a sensitive setting.
type SettingError struct {
	Extension string
	Setting   string
	Missing   bool
	Msg       string
}

func (e *SettingError) Error() string { return e.Msg }

// EnvName is the variable a setting reaches hooks and MCP servers in: its
// envVar, else OLLM_SETTING_<NAME> with every other character than a
// letter or digit turned into '_'.
func EnvName(s schema.Setting) string {
	if s.EnvVar != "" {
		return s.EnvVar
	}
	b := []byte(strings.ToUpper(s.Name))
	for i, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return "OLLM_SETTING_" + string(b)
}

// ResolveSettings gives each setting of ext its value: the profile's
// settings.<ext>.<name>, else the envVar from the environment, else the
// default. Each value is checked against its definition (type, enum,
// pattern). A missing required setting or an invalid value is an error;
// every such error is returned, each naming the extension and what to set.
func ResolveSettings(ext string, defs []schema.Setting, profile map[string]any, getenv func(string) (string, bool)) ([]Value, []error) {
	var out []Value
	var errs []error
	known := map[string]bool{}
	for _, d := range defs {
		known[d.Name] = true
		v := Value{Def: d, Name: d.Name, Source: Unset, EnvVar: EnvName(d)}
		where := fmt.Sprintf("settings.%s.%s", ext, d.Name)
		if pv, ok := profile[d.Name]; ok && pv != nil {
			v.Value, v.Source = pv, FromProfile
		} else if d.EnvVar != "" && getenv != nil {
			if ev, ok := getenv(d.EnvVar); ok && ev != "" {
				cv, err := convert(d, ev)
				if err != nil {
					errs = append(errs, settingErr(ext, d, false, "environment variable %s: %v", d.EnvVar, err))
					out = append(out, v)
					continue
				}
				v.Value, v.Source, where = cv, FromEnv, "$"+d.EnvVar
			}
		}
		if v.Source == Unset && d.Default != nil {
			v.Value, v.Source = d.Default, FromDefault
		}
		if v.Source == Unset {
			if d.Required {
				errs = append(errs, &SettingError{Extension: ext, Setting: d.Name, Missing: true, Msg: fmt.Sprintf(
					"extension %s: required setting %q is not set; %s, then run `ollm ext enable %s`", ext, d.Name, howToSet(ext, d), ext)})
			}
			out = append(out, v)
			continue
		}
		if err := Validate(d, v.Value); err != nil {
			errs = append(errs, settingErr(ext, d, false, "%s: %v", where, err))
			v.Value, v.Source = nil, Unset
		}
		out = append(out, v)
	}
	var unknown []string
	for k := range profile {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		errs = append(errs, &SettingError{Extension: ext, Setting: k, Msg: fmt.Sprintf(
			"extension %s: settings.%s.%s is not a setting of this extension; remove it or check its name (`ollm ext info %s` lists the settings)", ext, ext, k, ext)})
	}
	return out, errs
}

func howToSet(ext string, d schema.Setting) string {
	if d.EnvVar != "" {
		return fmt.Sprintf("set the environment variable %s or settings.%s.%s in your profile", d.EnvVar, ext, d.Name)
	}
	return fmt.Sprintf("set settings.%s.%s in your profile (ollm.cue or $OLLM_HOME/profile.cue)", ext, d.Name)
}

func settingErr(ext string, d schema.Setting, missing bool, format string, args ...any) error {
	return &SettingError{Extension: ext, Setting: d.Name, Missing: missing,
		Msg: fmt.Sprintf("extension %s: setting %q is invalid: ", ext, d.Name) + fmt.Sprintf(format, args...)}
}

// convert parses an environment variable's text as the setting's type.
func convert(d schema.Setting, s string) (any, error) {
	switch typeOf(d) {
	case "number":
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return nil, fmt.Errorf("want a number%s", shown(d, s))
		}
		return f, nil
	case "boolean":
		b, err := strconv.ParseBool(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("want true or false%s", shown(d, s))
		}
		return b, nil
	}
	return s, nil
}

func typeOf(d schema.Setting) string {
	if d.Type == "" {
		return "string"
	}
	return d.Type
}

// shown quotes a value in an error unless the setting is sensitive.
func shown(d schema.Setting, v any) string {
	if d.Sensitive {
		return " (the value is sensitive and not shown)"
	}
	return fmt.Sprintf(", got %v", quote(v))
}

func quote(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(v)
}

// Validate checks v against the setting's type, enum and pattern. Errors
// never contain the value of a sensitive setting.
func Validate(d schema.Setting, v any) error {
	switch typeOf(d) {
	case "string":
		if _, ok := v.(string); !ok {
			return fmt.Errorf("want a string%s", shown(d, v))
		}
	case "number":
		switch v.(type) {
		case float64, float32, int, int64, int32:
		default:
			return fmt.Errorf("want a number%s", shown(d, v))
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("want true or false%s", shown(d, v))
		}
	default:
		return fmt.Errorf("unknown type %q in the manifest; use string, number or boolean", d.Type)
	}
	if len(d.Enum) > 0 {
		ok := false
		for _, e := range d.Enum {
			if equal(e, v) {
				ok = true
				break
			}
		}
		if !ok {
			opts := make([]string, len(d.Enum))
			for i, e := range d.Enum {
				opts[i] = quote(e)
			}
			if d.Sensitive {
				return fmt.Errorf("not one of the allowed values%s", shown(d, v))
			}
			return fmt.Errorf("want one of %s%s", strings.Join(opts, ", "), shown(d, v))
		}
	}
	if d.Pattern != "" {
		s, ok := v.(string)
		if !ok {
			s = fmt.Sprint(v)
		}
		re, err := regexp.Compile(d.Pattern)
		if err != nil {
			return fmt.Errorf("the manifest's pattern %q does not compile: %v", d.Pattern, err)
		}
		if !re.MatchString(s) {
			return fmt.Errorf("does not match the pattern %s%s", d.Pattern, shown(d, v))
		}
	}
	return nil
}

func equal(a, b any) bool {
	fa, aok := toFloat(a)
	fb, bok := toFloat(b)
	if aok && bok {
		return fa == fb
	}
	return a == b
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	}
	return 0, false
}

// Env maps the settings that have a value to their variables.
func Env(values []Value) map[string]string {
	env := map[string]string{}
	for _, v := range values {
		if v.Source == Unset {
			continue
		}
		env[v.EnvVar] = envString(v.Value)
	}
	return env
}

func envString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}

// Secrets lists the values of sensitive settings, as text, for redaction.
func Secrets(values []Value) []string {
	var out []string
	for _, v := range values {
		if v.Def.Sensitive && v.Source != Unset {
			if s := envString(v.Value); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// Redacted is what replaces a secret in errors, logs and events.
const Redacted = secrets.Redacted

// Redact replaces the secrets in s: one of secrets.MinLen characters or
// more wherever it occurs, a shorter one only when it is all of s (a
// one-letter secret must not turn "extension" into "e[redacted]tension").
// A secret that contains another is replaced whole.
func Redact(s string, secretValues []string) string {
	return secrets.Redact(s, secretValues)
}
