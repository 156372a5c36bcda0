package hooks

import (
	"encoding/json"
	"time"
)

// Seed 002's extensions (zot's protocol) speak first: their hello lists
// capabilities, and they read every line ollm sends by its "type". They
// answer command_invoked, tool_call and shutdown, never an event: in
// seed 002 events are one-way and only go to an extension that
// subscribed to them. So a persistent hook that says hello that way is
// sent no events at all (its hook, declared on session_start, only
// starts it), and every line ollm does send it carries a type.

// eventType is the type of an event line: "event" on a persistent
// hook's channel (id != 0), none for a process hook.
func eventType(id uint64) string {
	if id == 0 {
		return ""
	}
	return "event"
}

// isSeed002Hello says whether a hello line is seed 002's: it lists the
// extension's capabilities.
func isSeed002Hello(line []byte) bool {
	var h struct {
		Capabilities json.RawMessage `json:"capabilities"`
	}
	return json.Unmarshal(line, &h) == nil && len(h.Capabilities) > 0
}

// answersNoEvents says whether the process is a seed 002 extension,
// which is sent no events. Its hello is read before ensure returns it.
func (c *conn) answersNoEvents() bool { return c.seed002 }

// registrationQuiet is how long a seed 002 extension may stay silent
// after its hello before its registrations count as complete (one that
// sends ready is not waited for longer).
const registrationQuiet = 150 * time.Millisecond

// awaitRegistrations waits, after a seed 002 hello, until the extension
// sends ready, exits, stays quiet for registrationQuiet, or the handshake
// time runs out: its register_command and register_tool frames follow
// the hello, and a command used at once (`ollm run -p /name`) must find
// them.
func (c *conn) awaitRegistrations(deadline <-chan time.Time) {
	quiet := time.NewTimer(registrationQuiet)
	defer quiet.Stop()
	for {
		select {
		case <-c.frames:
			quiet.Reset(registrationQuiet)
		case <-c.ready:
			return
		case <-c.dead:
			return
		case <-deadline:
			return
		case <-quiet.C:
			return
		}
	}
}

// framed notes a frame the process sent on its own (after its hello).
func (c *conn) framed(typ string) {
	if typ == "ready" {
		select {
		case <-c.ready:
		default:
			close(c.ready)
		}
		return
	}
	select {
	case c.frames <- struct{}{}:
	default:
	}
}
