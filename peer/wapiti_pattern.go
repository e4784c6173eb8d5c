package peer

import "strings"

// Wapiti patterns (pattern.c): literal text and commands %c[off,col] where c
// is x (the token), t (a regexp test: "true"/"false") or m (the first match
// of a regexp), written %t[off,col,"re"]; an upper-case command lower-cases
// its result (ASCII). The offset is relative to the current position, or
// absolute with '@' (@1 is the first token, @-1 the last), or read from
// column off of the current token with '*'. Tokens outside the sequence are
// "_x-1" .. "_x-4", "_x-#" before and "_x+1" .. "_x+4", "_x+#" after.
//
// The regexps are Wapiti's own small dialect: '.', \d \a \w \l \u \p \s (and
// upper-case negations), '\c' for a literal c, postfix '*' (shortest match
// first) and '?', '^' anchoring at the start and a final '$' at the end. It
// is reimplemented here step for step, including how it counts the match
// length.
type wapitiPattern struct {
	src   string
	items []wapitiItem
}

type wapitiItem struct {
	typ      byte // 's' literal, 'x', 't', 'm'
	caps     bool
	absolute bool
	indirect bool
	offset   int
	column   int
	value    string // literal text or regexp
}

// compileWapiti parses a pattern; the message is empty on success. Where
// Wapiti would stop with a fatal error while loading (or, for regexps with
// a misplaced '*' or '?', while tagging), the model is refused.
func compileWapiti(p string) (wapitiPattern, string) {
	pat := wapitiPattern{src: p}
	pos := 0
	for pos < len(p) {
		if p[pos] != '%' {
			start := pos
			for pos < len(p) && p[pos] != '%' {
				pos++
			}
			pat.items = append(pat.items, wapitiItem{typ: 's', value: p[start:pos]})
			continue
		}
		if pos+1 >= len(p) {
			return pat, "command at the end of the pattern"
		}
		c := p[pos+1]
		typ := toLowerASCII(c)
		if typ != 'x' && typ != 't' && typ != 'm' {
			return pat, "unknown command '" + string(c) + "'"
		}
		it := wapitiItem{typ: typ, caps: c != typ}
		pos += 2
		if !strings.HasPrefix(p[pos:], "[") {
			return pat, "expected '[' after the command"
		}
		q := pos + 1
		switch {
		case q < len(p) && p[q] == '@':
			it.absolute = true
			q++
		case q < len(p) && p[q] == '*':
			it.indirect = true
			q++
		}
		off, q, ok := scanCInt(p, q)
		if !ok || q >= len(p) || p[q] != ',' {
			return pat, "bad offset"
		}
		col, q2, ok := scanCUint(p, q+1)
		if !ok {
			return pat, "bad column"
		}
		it.offset, it.column, pos = off, col, q2
		if typ == 't' || typ == 'm' {
			// Wapiti accepts the argument when either the ',' or the
			// '"' is in place, and skips both.
			if !(pos < len(p) && p[pos] == ',') && !(pos+1 < len(p) && p[pos+1] == '"') {
				return pat, "missing regexp argument"
			}
			pos += 2
			start := pos
			for pos < len(p) && p[pos] != '"' {
				if p[pos] == '\\' && pos+1 < len(p) {
					pos++
				}
				pos++
			}
			if pos >= len(p) {
				return pat, "unended regexp argument"
			}
			it.value = p[start:pos]
			pos++
			if msg := checkRex(it.value); msg != "" {
				return pat, msg
			}
		}
		if pos >= len(p) || p[pos] != ']' {
			return pat, "missing ']'"
		}
		pos++
		pat.items = append(pat.items, it)
	}
	return pat, ""
}

// scanCInt parses an integer as sscanf's %i: optional white space and sign,
// then hexadecimal after 0x, octal after 0, decimal otherwise.
func scanCInt(s string, i int) (int, int, bool) {
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	base := 10
	if i+1 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && i+2 < len(s) && hexVal(s[i+2]) >= 0 {
		base, i = 16, i+2
	} else if i < len(s) && s[i] == '0' {
		base = 8
	}
	start, v := i, 0
	for i < len(s) {
		d := hexVal(s[i])
		if d < 0 || d >= base {
			break
		}
		if v > 1<<24 {
			return 0, i, false
		}
		v = v*base + d
		i++
	}
	if i == start {
		return 0, i, false
	}
	if neg {
		v = -v
	}
	return v, i, true
}

// scanCUint parses a column as sscanf's %u (non-negative here).
func scanCUint(s string, i int) (int, int, bool) {
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	if i < len(s) && s[i] == '+' {
		i++
	}
	start, v := i, 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		if v > 1<<24 {
			return 0, i, false
		}
		v = 10*v + int(s[i]-'0')
		i++
	}
	return v, i, i > start
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func toLowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// checkRex refuses regexps on which Wapiti's matcher stops with "unescaped *
// or ? in regexp": an element that starts with '*' or '?'.
func checkRex(re string) string {
	i := 0
	if strings.HasPrefix(re, "^") {
		i = 1
	}
	for i < len(re) {
		if re[i] == '$' && i == len(re)-1 {
			break
		}
		if re[i] == '*' || re[i] == '?' {
			return "unescaped * or ? in regexp " + `"` + re + `"`
		}
		if re[i] == '\\' {
			if i+1 == len(re) {
				return "regexp " + `"` + re + `"` + " ends with a lone backslash"
			}
			i++
		}
		i++
		if i < len(re) && (re[i] == '*' || re[i] == '?') {
			i++
		}
	}
	return ""
}

var bvals = [5]string{"_x-1", "_x-2", "_x-3", "_x-4", "_x-#"}
var evals = [5]string{"_x+1", "_x+2", "_x+3", "_x+4", "_x+#"}

// exec appends the observation of the pattern at position at (pat_exec).
func (pat *wapitiPattern) exec(buf []byte, toks [][]string, at int) ([]byte, error) {
	T := len(toks)
	for k := range pat.items {
		it := &pat.items[k]
		if it.typ == 's' {
			buf = append(buf, it.value...)
			continue
		}
		pos := it.offset
		switch {
		case it.absolute:
			if pos < 0 {
				pos += T
			} else {
				pos--
			}
		case it.indirect:
			if pos < 0 || pos >= len(toks[at]) {
				return buf, inputErr("position %d: pattern %q reads column %d of %d", at, pat.src, pos, len(toks[at]))
			}
			pos = at + atoi(toks[at][pos])
		default:
			pos += at
		}
		var value string
		switch {
		case pos < 0:
			value = bvals[min(-pos-1, 4)]
		case pos >= T:
			value = evals[min(pos-T, 4)]
		case it.column >= len(toks[pos]):
			return buf, inputErr("position %d: pattern %q reads column %d, the token has %d (Wapiti: missing tokens)", pos, pat.src, it.column, len(toks[pos]))
		default:
			value = cstring(toks[pos][it.column])
		}
		truncated := false
		switch it.typ {
		case 't':
			if _, ok := rexMatch(it.value, value); ok {
				value = "true"
			} else {
				value = "false"
			}
		case 'm':
			start, n, ok := rexMatchLen(it.value, value)
			if !ok {
				value = ""
			} else if start+n > len(value) {
				// Wapiti's length count can overshoot the string; it
				// then copies the NUL, which ends the observation.
				value, truncated = value[start:], true
			} else {
				value = value[start : start+n]
			}
		}
		mark := len(buf)
		buf = append(buf, value...)
		if it.caps {
			for i := mark; i < len(buf); i++ {
				buf[i] = toLowerASCII(buf[i])
			}
		}
		if truncated {
			return buf, nil
		}
	}
	return buf, nil
}

// atoi is C's atoi on a token: white space, sign, decimal digits (clamped).
func atoi(s string) int {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	v := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		if v < 1<<30 {
			v = 10*v + int(s[i]-'0')
		}
	}
	if neg {
		return -v
	}
	return v
}

func rexMatch(re, s string) (int, bool) {
	start, _, ok := rexMatchLen(re, s)
	return start, ok
}

// rexMatchLen is rex_match: the start of the first match and Wapiti's count
// of its length.
func rexMatchLen(re, s string) (start, n int, ok bool) {
	if strings.HasPrefix(re, "^") {
		n := 0
		if rexMatchMe(re[1:], s, 0, &n) {
			return 0, n, true
		}
		return -1, 0, false
	}
	for pos := 0; ; pos++ {
		n := 0
		if rexMatchMe(re, s, pos, &n) {
			return pos, n, true
		}
		if pos >= len(s) {
			return -1, 0, false
		}
	}
}

// rexMatchIt matches one element (a char, '.', or a \class) at s[i].
func rexMatchIt(re string, s string, i int) bool {
	if i >= len(s) || s[i] == 0 {
		return false
	}
	c := s[i]
	if re[0] == '.' {
		return true
	}
	if re[0] == '\\' && len(re) > 1 {
		switch re[1] {
		case 'a':
			return isAlpha(c)
		case 'd':
			return isDigit(c)
		case 'l':
			return c >= 'a' && c <= 'z'
		case 'p':
			return isPunct(c)
		case 's':
			return isCSpace(c)
		case 'u':
			return c >= 'A' && c <= 'Z'
		case 'w':
			return isAlpha(c) || isDigit(c)
		case 'A':
			return !isAlpha(c)
		case 'D':
			return !isDigit(c)
		case 'L':
			return !(c >= 'a' && c <= 'z')
		case 'P':
			return !isPunct(c)
		case 'S':
			return !isCSpace(c)
		case 'U':
			return !(c >= 'A' && c <= 'Z')
		case 'W':
			return !(isAlpha(c) || isDigit(c))
		}
		return re[1] == c
	}
	return re[0] == c
}

func isAlpha(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isPunct(c byte) bool { return c > ' ' && c < 0x7f && !isAlpha(c) && !isDigit(c) }

// rexMatchMe is rex_matchme: does re match at s[i:]? n counts as Wapiti
// counts. The recursion depth is bounded by len(re) + len(s).
func rexMatchMe(re, s string, i int, n *int) bool {
	if re == "" {
		return true
	}
	if re == "$" {
		return i >= len(s) || s[i] == 0
	}
	el := 1
	if re[0] == '\\' && len(re) > 1 {
		el = 2
	}
	nxt := re[el:]
	if strings.HasPrefix(nxt, "*") {
		nxt = nxt[1:]
		for {
			save := *n
			if rexMatchMe(nxt, s, i, n) {
				return true
			}
			*n = save + 1
			ok := rexMatchIt(re, s, i)
			i++
			if !ok {
				return false
			}
		}
	}
	if strings.HasPrefix(nxt, "?") {
		nxt = nxt[1:]
		if rexMatchIt(re, s, i) {
			*n++
			if rexMatchMe(nxt, s, i+1, n) {
				return true
			}
			*n--
		}
		return rexMatchMe(nxt, s, i, n)
	}
	*n++
	if rexMatchIt(re, s, i) {
		return rexMatchMe(nxt, s, i+1, n)
	}
	return false
}
