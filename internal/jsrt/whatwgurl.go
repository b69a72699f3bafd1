package jsrt

import (
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// A URL parser that follows the WHATWG URL Standard's basic URL parser,
// which Node's URL implements: special schemes, the file scheme's
// quirks, opaque paths, IPv4 in all its forms, IPv6, IDNA hosts,
// percent-encoding by component, and the state overrides the URL
// setters run it with. Go's net/url follows RFC 3986 and parses many
// inputs otherwise.

// webURL is a URL record.
type webURL struct {
	scheme, username, password string
	host                       *string // nil: no host
	port                       int     // -1: none
	path                       []string
	opaque                     bool   // the path is opaquePath, not segments
	opaquePath                 string // for a URL like mailto:x or data:…
	query, fragment            *string
}

type urlState int

const (
	stNone urlState = iota
	stSchemeStart
	stScheme
	stNoScheme
	stSpecialRelativeOrAuthority
	stPathOrAuthority
	stRelative
	stRelativeSlash
	stSpecialAuthoritySlashes
	stSpecialAuthorityIgnoreSlashes
	stAuthority
	stHost
	stHostname
	stPort
	stFile
	stFileSlash
	stFileHost
	stPathStart
	stPath
	stOpaquePath
	stQuery
	stFragment
)

var specialPorts = map[string]int{"ftp": 21, "file": -1, "http": 80, "https": 443, "ws": 80, "wss": 443}

func isSpecialScheme(s string) bool { _, ok := specialPorts[s]; return ok }

func defaultPort(s string) int {
	if p, ok := specialPorts[s]; ok {
		return p
	}
	return -1
}

func (u *webURL) special() bool { return isSpecialScheme(u.scheme) }

func strPtr(s string) *string { return &s }

// Percent-encode sets, as predicates over a byte of UTF-8 (a byte of 0x80
// or more is always encoded).
func inC0Control(c byte) bool { return c < 0x20 || c > 0x7e }
func inFragmentSet(c byte) bool {
	return inC0Control(c) || c == ' ' || c == '"' || c == '<' || c == '>' || c == '`'
}
func inQuerySet(c byte) bool {
	return inC0Control(c) || c == ' ' || c == '"' || c == '#' || c == '<' || c == '>'
}
func inSpecialQuerySet(c byte) bool { return inQuerySet(c) || c == '\'' }
func inPathSet(c byte) bool {
	return inQuerySet(c) || c == '?' || c == '`' || c == '{' || c == '}' // not ^, as in Node 20
}
func inUserinfoSet(c byte) bool {
	return inPathSet(c) || c == '/' || c == ':' || c == ';' || c == '=' || c == '@' || (c >= '[' && c <= '^') || c == '|'
}

const upperHex = "0123456789ABCDEF"

func percentEncode(s string, set func(byte) bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if set(c) {
			b.WriteByte('%')
			b.WriteByte(upperHex[c>>4])
			b.WriteByte(upperHex[c&15])
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

func percentEncodeRune(r rune, set func(byte) bool) string {
	return percentEncode(string(r), set)
}

// hexValue is unhex as an int: -1 for a byte that is not a hex digit.
func hexValue(c byte) int {
	if v, ok := unhex(c); ok {
		return int(v)
	}
	return -1
}

// percentDecode decodes %XX, keeping a % that starts no escape.
func percentDecode(s string) []byte {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && hexValue(s[i+1]) >= 0 && hexValue(s[i+2]) >= 0 {
			out = append(out, byte(hexValue(s[i+1])<<4|hexValue(s[i+2])))
			i += 2
			continue
		}
		out = append(out, s[i])
	}
	return out
}

func isASCIIAlpha(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }
func isASCIIDigit(r rune) bool { return r >= '0' && r <= '9' }
func toLowerASCII(r rune) rune {
	if r >= 'A' && r <= 'Z' {
		return r + 32
	}
	return r
}

func isWindowsDriveLetter(s []rune) bool {
	return len(s) == 2 && isASCIIAlpha(s[0]) && (s[1] == ':' || s[1] == '|')
}

func isNormalizedDriveLetter(s string) bool {
	return len(s) == 2 && isASCIIAlpha(rune(s[0])) && s[1] == ':'
}

func startsWithDriveLetter(s []rune) bool {
	if len(s) < 2 || !isWindowsDriveLetter(s[:2]) {
		return false
	}
	return len(s) == 2 || s[2] == '/' || s[2] == '\\' || s[2] == '?' || s[2] == '#'
}

func isSingleDot(s string) bool { return s == "." || strings.EqualFold(s, "%2e") }
func isDoubleDot(s string) bool {
	switch strings.ToLower(s) {
	case "..", ".%2e", "%2e.", "%2e%2e":
		return true
	}
	return false
}

func (u *webURL) shortenPath() {
	if u.scheme == "file" && len(u.path) == 1 && isNormalizedDriveLetter(u.path[0]) {
		return
	}
	if len(u.path) > 0 {
		u.path = u.path[:len(u.path)-1]
	}
}

func (u *webURL) hasCredentials() bool { return u.username != "" || u.password != "" }

// cannotHaveCredentialsOrPort says the URL has no host to give them to.
func (u *webURL) cannotHaveCredentialsOrPort() bool {
	return u.host == nil || *u.host == "" || u.scheme == "file"
}

// parseURL parses input against base (nil: none), nil when it does not
// parse.
func parseURL(input string, base *webURL) *webURL {
	u, ok := parseWebURL(input, base, nil, stNone)
	if !ok {
		return nil
	}
	return u
}

// parseWebURL parses input against base (nil: none). With a state
// override it changes url (which must be given) in place, as a setter
// does, and reports false when the value was refused.
func parseWebURL(input string, base *webURL, url *webURL, override urlState) (*webURL, bool) {
	if url == nil {
		// a new URL's input loses the C0 controls and spaces at its ends
		url = &webURL{port: -1}
		input = strings.TrimFunc(input, func(r rune) bool { return r <= 0x20 })
	}
	input = removeTabsAndNewlines(input)
	in := []rune(input)
	state := override
	if state == stNone {
		state = stSchemeStart
	}
	var buf []rune
	atSignSeen, insideBrackets, passwordTokenSeen := false, false, false
	const eof = rune(-1)
	for p := 0; p <= len(in); p++ {
		c := eof
		if p < len(in) {
			c = in[p]
		}
		remaining := func(i int) rune { // in[p+i], or eof
			if p+i < len(in) && p+i >= 0 {
				return in[p+i]
			}
			return eof
		}
		switch state {
		case stSchemeStart:
			if isASCIIAlpha(c) {
				buf = append(buf, toLowerASCII(c))
				state = stScheme
			} else if override == stNone {
				state = stNoScheme
				p--
			} else {
				return url, false
			}
		case stScheme:
			if isASCIIAlpha(c) || isASCIIDigit(c) || c == '+' || c == '-' || c == '.' {
				buf = append(buf, toLowerASCII(c))
			} else if c == ':' {
				scheme := string(buf)
				if override != stNone {
					if url.special() != isSpecialScheme(scheme) {
						return url, true
					}
					if (url.hasCredentials() || url.port >= 0) && scheme == "file" {
						return url, true
					}
					if url.scheme == "file" && url.host != nil && *url.host == "" {
						return url, true
					}
				}
				url.scheme = scheme
				if override != stNone {
					if url.port == defaultPort(url.scheme) {
						url.port = -1
					}
					return url, true
				}
				buf = buf[:0]
				switch {
				case url.scheme == "file":
					state = stFile
				case url.special() && base != nil && base.scheme == url.scheme:
					state = stSpecialRelativeOrAuthority
				case url.special():
					state = stSpecialAuthoritySlashes
				case remaining(1) == '/':
					state = stPathOrAuthority
					p++
				default:
					url.opaque = true
					url.opaquePath = ""
					state = stOpaquePath
				}
			} else if override == stNone {
				buf = buf[:0]
				state = stNoScheme
				p = -1
			} else {
				return url, false
			}
		case stNoScheme:
			if base == nil || (base.opaque && c != '#') {
				return nil, false
			}
			if base.opaque && c == '#' {
				url.scheme = base.scheme
				url.opaque = true
				url.opaquePath = base.opaquePath
				url.query = base.query
				url.fragment = strPtr("")
				state = stFragment
			} else if base.scheme != "file" {
				state = stRelative
				p--
			} else {
				state = stFile
				p--
			}
		case stSpecialRelativeOrAuthority:
			if c == '/' && remaining(1) == '/' {
				state = stSpecialAuthorityIgnoreSlashes
				p++
			} else {
				state = stRelative
				p--
			}
		case stPathOrAuthority:
			if c == '/' {
				state = stAuthority
			} else {
				state = stPath
				p--
			}
		case stRelative:
			url.scheme = base.scheme
			if c == '/' || (url.special() && c == '\\') {
				state = stRelativeSlash
			} else {
				url.username, url.password, url.host, url.port = base.username, base.password, base.host, base.port
				url.path = append([]string(nil), base.path...)
				url.query = base.query
				switch c {
				case '?':
					url.query = strPtr("")
					state = stQuery
				case '#':
					url.fragment = strPtr("")
					state = stFragment
				case eof:
				default:
					url.query = nil
					url.shortenPath()
					state = stPath
					p--
				}
			}
		case stRelativeSlash:
			if url.special() && (c == '/' || c == '\\') {
				state = stSpecialAuthorityIgnoreSlashes
			} else if c == '/' {
				state = stAuthority
			} else {
				url.username, url.password, url.host, url.port = base.username, base.password, base.host, base.port
				state = stPath
				p--
			}
		case stSpecialAuthoritySlashes:
			state = stSpecialAuthorityIgnoreSlashes
			if c == '/' && remaining(1) == '/' {
				p++
			} else {
				p--
			}
		case stSpecialAuthorityIgnoreSlashes:
			if c != '/' && c != '\\' {
				state = stAuthority
				p--
			}
		case stAuthority:
			if c == '@' {
				if atSignSeen {
					buf = append([]rune("%40"), buf...)
				}
				atSignSeen = true
				for _, r := range buf {
					if r == ':' && !passwordTokenSeen {
						passwordTokenSeen = true
						continue
					}
					enc := percentEncodeRune(r, inUserinfoSet)
					if passwordTokenSeen {
						url.password += enc
					} else {
						url.username += enc
					}
				}
				buf = buf[:0]
			} else if c == eof || c == '/' || c == '?' || c == '#' || (url.special() && c == '\\') {
				if atSignSeen && len(buf) == 0 {
					return nil, false
				}
				p -= len(buf) + 1
				buf = buf[:0]
				state = stHost
			} else {
				buf = append(buf, c)
			}
		case stHost, stHostname:
			if override != stNone && url.scheme == "file" {
				p--
				state = stFileHost
			} else if c == ':' && !insideBrackets {
				if len(buf) == 0 {
					return url, false
				}
				if override == stHostname {
					return url, false
				}
				h, ok := parseHost(string(buf), !url.special())
				if !ok {
					return url, false
				}
				url.host = &h
				buf = buf[:0]
				state = stPort
			} else if c == eof || c == '/' || c == '?' || c == '#' || (url.special() && c == '\\') {
				p--
				if url.special() && len(buf) == 0 {
					return url, false
				} else if override != stNone && len(buf) == 0 && (url.hasCredentials() || url.port >= 0) {
					return url, false
				}
				h, ok := parseHost(string(buf), !url.special())
				if !ok {
					return url, false
				}
				url.host = &h
				buf = buf[:0]
				state = stPathStart
				if override != stNone {
					return url, true
				}
			} else {
				if c == '[' {
					insideBrackets = true
				} else if c == ']' {
					insideBrackets = false
				}
				buf = append(buf, c)
			}
		case stPort:
			if isASCIIDigit(c) {
				buf = append(buf, c)
			} else if c == eof || c == '/' || c == '?' || c == '#' || (url.special() && c == '\\') || override != stNone {
				if len(buf) > 0 {
					digits := strings.TrimLeft(string(buf), "0")
					port := 0
					if len(digits) > 5 {
						return url, false
					}
					if digits != "" {
						port, _ = strconv.Atoi(digits)
					}
					if port > 65535 {
						return url, false
					}
					if port == defaultPort(url.scheme) {
						url.port = -1
					} else {
						url.port = port
					}
					buf = buf[:0]
				}
				if override != stNone {
					return url, true
				}
				state = stPathStart
				p--
			} else {
				return url, false
			}
		case stFile:
			url.scheme = "file"
			url.host = strPtr("")
			if c == '/' || c == '\\' {
				state = stFileSlash
			} else if base != nil && base.scheme == "file" {
				url.host = base.host
				url.path = append([]string(nil), base.path...)
				url.query = base.query
				switch c {
				case '?':
					url.query = strPtr("")
					state = stQuery
				case '#':
					url.fragment = strPtr("")
					state = stFragment
				case eof:
				default:
					url.query = nil
					if !startsWithDriveLetter(in[p:]) {
						url.shortenPath()
					} else {
						url.path = nil
					}
					state = stPath
					p--
				}
			} else {
				state = stPath
				p--
			}
		case stFileSlash:
			if c == '/' || c == '\\' {
				state = stFileHost
			} else {
				if base != nil && base.scheme == "file" {
					url.host = base.host
					if !startsWithDriveLetter(in[p:]) && len(base.path) > 0 && isNormalizedDriveLetter(base.path[0]) {
						url.path = append(url.path, base.path[0])
					}
				}
				state = stPath
				p--
			}
		case stFileHost:
			if c == eof || c == '/' || c == '\\' || c == '?' || c == '#' {
				p--
				if override == stNone && isWindowsDriveLetter(buf) {
					state = stPath // the drive letter stays in buf, for the path
				} else if len(buf) == 0 {
					url.host = strPtr("")
					if override != stNone {
						return url, true
					}
					state = stPathStart
				} else {
					h, ok := parseHost(string(buf), !url.special())
					if !ok {
						return url, false
					}
					if h == "localhost" {
						h = ""
					}
					url.host = &h
					if override != stNone {
						return url, true
					}
					buf = buf[:0]
					state = stPathStart
				}
			} else {
				buf = append(buf, c)
			}
		case stPathStart:
			if url.special() {
				state = stPath
				if c != '/' && c != '\\' {
					p--
				}
			} else if override == stNone && c == '?' {
				url.query = strPtr("")
				state = stQuery
			} else if override == stNone && c == '#' {
				url.fragment = strPtr("")
				state = stFragment
			} else if c != eof {
				state = stPath
				if c != '/' {
					p--
				}
			} else if override != stNone && url.host == nil {
				url.path = append(url.path, "")
			}
		case stPath:
			slash := c == '/' || (url.special() && c == '\\')
			if c == eof || slash || (override == stNone && (c == '?' || c == '#')) {
				seg := string(buf)
				switch {
				case isDoubleDot(seg):
					url.shortenPath()
					if !slash {
						url.path = append(url.path, "")
					}
				case isSingleDot(seg) && !slash:
					url.path = append(url.path, "")
				case !isSingleDot(seg):
					if url.scheme == "file" && len(url.path) == 0 && isWindowsDriveLetter(buf) {
						seg = string(buf[:1]) + ":"
					}
					url.path = append(url.path, seg)
				}
				buf = buf[:0]
				if c == '?' {
					url.query = strPtr("")
					state = stQuery
				} else if c == '#' {
					url.fragment = strPtr("")
					state = stFragment
				}
			} else {
				buf = append(buf, []rune(percentEncodeRune(c, inPathSet))...)
			}
		case stOpaquePath:
			switch c {
			case '?':
				url.query = strPtr("")
				state = stQuery
			case '#':
				url.fragment = strPtr("")
				state = stFragment
			case eof:
			default:
				url.opaquePath += percentEncodeRune(c, inC0Control)
			}
		case stQuery:
			if (override == stNone && c == '#') || c == eof {
				set := inQuerySet
				if url.special() {
					set = inSpecialQuerySet
				}
				q := ""
				if url.query != nil {
					q = *url.query
				}
				q += percentEncode(string(buf), set)
				url.query = &q
				buf = buf[:0]
				if c == '#' {
					url.fragment = strPtr("")
					state = stFragment
				}
			} else {
				buf = append(buf, c)
			}
		case stFragment:
			if c != eof {
				f := ""
				if url.fragment != nil {
					f = *url.fragment
				}
				f += percentEncodeRune(c, inFragmentSet)
				url.fragment = &f
			}
		}
	}
	return url, true
}

// removeTabsAndNewlines removes them, as the parser does everywhere in
// its input.
func removeTabsAndNewlines(s string) string {
	if !strings.ContainsAny(s, "\t\n\r") {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
}

// href serializes the URL; without the fragment when noFragment.
func (u *webURL) href(noFragment bool) string {
	var b strings.Builder
	b.WriteString(u.scheme)
	b.WriteByte(':')
	if u.host != nil {
		b.WriteString("//")
		if u.hasCredentials() {
			b.WriteString(u.username)
			if u.password != "" {
				b.WriteByte(':')
				b.WriteString(u.password)
			}
			b.WriteByte('@')
		}
		b.WriteString(*u.host)
		if u.port >= 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(u.port))
		}
	}
	if u.host == nil && !u.opaque && len(u.path) > 1 && u.path[0] == "" {
		b.WriteString("/.")
	}
	b.WriteString(u.pathname())
	if u.query != nil {
		b.WriteByte('?')
		b.WriteString(*u.query)
	}
	if !noFragment && u.fragment != nil {
		b.WriteByte('#')
		b.WriteString(*u.fragment)
	}
	return b.String()
}

func (u *webURL) pathname() string {
	if u.opaque {
		return u.opaquePath
	}
	var b strings.Builder
	for _, s := range u.path {
		b.WriteByte('/')
		b.WriteString(s)
	}
	return b.String()
}

func (u *webURL) origin() string {
	switch u.scheme {
	case "blob":
		if inner := parseURL(u.pathname(), nil); inner != nil && (inner.scheme == "http" || inner.scheme == "https") {
			return inner.origin()
		}
		return "null"
	case "ftp", "http", "https", "ws", "wss":
		s := u.scheme + "://" + *u.host
		if u.port >= 0 {
			s += ":" + strconv.Itoa(u.port)
		}
		return s
	}
	return "null"
}

// ---- hosts ------------------------------------------------------------

// forbiddenHost reports the code points no host may hold; forbidden in a
// domain are these and C0 controls, % and DEL.
func forbiddenHost(r rune) bool {
	switch r {
	case 0, '\t', '\n', '\r', ' ', '#', '/', ':', '<', '>', '?', '@', '[', '\\', ']', '^', '|':
		return true
	}
	return false
}

func forbiddenDomain(r rune) bool {
	return forbiddenHost(r) || r <= 0x1f || r == '%' || r == 0x7f
}

// parseHost parses a host, serialized as the URL shows it.
func parseHost(input string, opaque bool) (string, bool) {
	if strings.HasPrefix(input, "[") {
		if !strings.HasSuffix(input, "]") {
			return "", false
		}
		a, ok := parseIPv6(input[1 : len(input)-1])
		if !ok {
			return "", false
		}
		return "[" + serializeIPv6(a) + "]", true
	}
	if opaque {
		for _, r := range input {
			if forbiddenHost(r) {
				return "", false
			}
		}
		return percentEncode(input, inC0Control), true
	}
	domain := strings.ToValidUTF8(string(percentDecode(input)), "\uFFFD")
	ascii, ok := domainToASCII(domain, false)
	if !ok || ascii == "" {
		return "", false
	}
	for _, r := range ascii {
		if forbiddenDomain(r) {
			return "", false
		}
	}
	if endsInNumber(ascii) {
		n, ok := parseIPv4(ascii)
		if !ok {
			return "", false
		}
		return serializeIPv4(n), true
	}
	return ascii, true
}

var idnaProfile = idna.New(
	idna.MapForLookup(),
	idna.StrictDomainName(false), // UseSTD3ASCIIRules is false in URLs
	idna.Transitional(false),
	idna.CheckHyphens(false),
	idna.CheckJoiners(true),
	idna.BidiRule(),
	idna.VerifyDNSLength(false),
)

// domainToASCII is UTS #46 ToASCII as the URL Standard runs it.
func domainToASCII(domain string, strict bool) (string, bool) {
	plain := true
	for i := 0; i < len(domain); i++ {
		if domain[i] >= 0x80 {
			plain = false
			break
		}
	}
	if plain {
		lower := strings.ToLower(domain)
		needs := false
		for _, label := range strings.Split(lower, ".") {
			if strings.HasPrefix(label, "xn--") {
				needs = true
			}
		}
		if !needs {
			return lower, true
		}
	}
	out, err := idnaProfile.ToASCII(domain)
	if err != nil {
		return "", false
	}
	return out, true
}

func domainToUnicode(domain string) (string, bool) {
	out, err := idnaProfile.ToUnicode(domain)
	return out, err == nil
}

func endsInNumber(s string) bool {
	parts := strings.Split(s, ".")
	if parts[len(parts)-1] == "" {
		if len(parts) == 1 {
			return false
		}
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if last != "" && strings.Trim(last, "0123456789") == "" {
		return true
	}
	_, ok := parseIPv4Number(last)
	return ok
}

// parseIPv4Number parses one part of an IPv4 address: decimal, octal
// (a leading 0) or hexadecimal (0x).
func parseIPv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := 10
	if len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X") {
		s, base = s[2:], 16
	} else if len(s) >= 2 && s[0] == '0' {
		s, base = s[1:], 8
	}
	if s == "" {
		return 0, true
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		d := hexValue(s[i])
		if d < 0 || d >= base {
			return 0, false
		}
		n = n*uint64(base) + uint64(d)
		if n > 1<<40 { // far past any IPv4 address: refused anyway
			n = 1 << 40
		}
	}
	return n, true
}

func parseIPv4(s string) (uint32, bool) {
	parts := strings.Split(s, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return 0, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := parseIPv4Number(p)
		if !ok {
			return 0, false
		}
		nums[i] = n
	}
	for _, n := range nums[:len(nums)-1] {
		if n > 255 {
			return 0, false
		}
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return 0, false
	}
	v := last
	for i, n := range nums[:len(nums)-1] {
		v += n << (8 * (3 - i))
	}
	return uint32(v), true
}

func serializeIPv4(n uint32) string {
	return strconv.Itoa(int(n>>24)) + "." + strconv.Itoa(int(n>>16&255)) + "." + strconv.Itoa(int(n>>8&255)) + "." + strconv.Itoa(int(n&255))
}

func parseIPv6(s string) ([8]uint16, bool) {
	var a [8]uint16
	in := []byte(s)
	piece, compress := 0, -1
	p := 0
	at := func(i int) int {
		if i < len(in) {
			return int(in[i])
		}
		return -1
	}
	if at(p) == ':' {
		if at(p+1) != ':' {
			return a, false
		}
		p += 2
		piece++
		compress = piece
	}
	for at(p) != -1 {
		if piece == 8 {
			return a, false
		}
		if at(p) == ':' {
			if compress != -1 {
				return a, false
			}
			p++
			piece++
			compress = piece
			continue
		}
		value, length := 0, 0
		for length < 4 && at(p) != -1 && hexValue(byte(at(p))) >= 0 {
			value = value*16 + hexValue(byte(at(p)))
			p++
			length++
		}
		if at(p) == '.' {
			if length == 0 {
				return a, false
			}
			p -= length
			if piece > 6 {
				return a, false
			}
			seen := 0
			for at(p) != -1 {
				v := -1
				if seen > 0 {
					if at(p) == '.' && seen < 4 {
						p++
					} else {
						return a, false
					}
				}
				if at(p) < '0' || at(p) > '9' {
					return a, false
				}
				for at(p) >= '0' && at(p) <= '9' {
					n := at(p) - '0'
					switch v {
					case -1:
						v = n
					case 0:
						return a, false
					default:
						v = v*10 + n
					}
					if v > 255 {
						return a, false
					}
					p++
				}
				a[piece] = a[piece]*0x100 + uint16(v)
				seen++
				if seen == 2 || seen == 4 {
					piece++
				}
			}
			if seen != 4 {
				return a, false
			}
			break
		} else if at(p) == ':' {
			p++
			if at(p) == -1 {
				return a, false
			}
		} else if at(p) != -1 {
			return a, false
		}
		a[piece] = uint16(value)
		piece++
	}
	if compress != -1 {
		swaps := piece - compress
		piece = 7
		for piece != 0 && swaps > 0 {
			a[piece], a[compress+swaps-1] = a[compress+swaps-1], a[piece]
			piece--
			swaps--
		}
	} else if piece != 8 {
		return a, false
	}
	return a, true
}

func serializeIPv6(a [8]uint16) string {
	// the first longest run of two or more zeros is compressed
	best, bestLen := -1, 1
	for i := 0; i < 8; {
		if a[i] != 0 {
			i++
			continue
		}
		j := i
		for j < 8 && a[j] == 0 {
			j++
		}
		if j-i > bestLen {
			best, bestLen = i, j-i
		}
		i = j
	}
	var b strings.Builder
	ignore0 := false
	for i := 0; i < 8; i++ {
		if ignore0 && a[i] == 0 {
			continue
		}
		ignore0 = false
		if best == i {
			if i == 0 {
				b.WriteString("::")
			} else {
				b.WriteString(":")
			}
			ignore0 = true
			continue
		}
		b.WriteString(strconv.FormatUint(uint64(a[i]), 16))
		if i != 7 {
			b.WriteByte(':')
		}
	}
	return b.String()
}
