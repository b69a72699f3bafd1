package tool

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// FetchOptions limit the webfetch tool.
type FetchOptions struct {
	AllowPrivate bool          // allow every address, special-purpose ones included (tools.allow_private_fetch)
	MaxBytes     int64         // the largest body read (of which MaxOutputBytes of text are returned); 5 MiB if zero
	Timeout      time.Duration // the whole request; 30 s if zero

	resolver *net.Resolver  // names are looked up with it; the system's when nil
	exempt   []netip.Prefix // addresses let through despite the policy (tests' own servers)
}

// ErrForbiddenAddress is a fetch refused because the address it resolved
// to is not public.
var ErrForbiddenAddress = errors.New("refused: the address is not public (set tools.allow_private_fetch to allow it)")

// specialPurpose are the ranges webfetch never connects to unless
// tools.allow_private_fetch is set: the IANA IPv4 and IPv6 special-purpose
// address registries (RFC 6890 and its updates), multicast, and the
// transition ranges that embed an IPv4 address (NAT64, 6to4, Teredo),
// which could lead to an internal IPv4 host through a gateway. IPv4-mapped
// IPv6 addresses (::ffff:0:0/96) are not listed: they are checked as the
// IPv4 address they carry.
var specialPurpose = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		// IPv4
		"0.0.0.0/8",       // "this network"
		"10.0.0.0/8",      // private
		"100.64.0.0/10",   // shared address space (carrier-grade NAT)
		"127.0.0.0/8",     // loopback
		"169.254.0.0/16",  // link-local (cloud metadata services)
		"172.16.0.0/12",   // private
		"192.0.0.0/24",    // IETF protocol assignments
		"192.0.2.0/24",    // documentation (TEST-NET-1)
		"192.88.99.0/24",  // 6to4 relay anycast (deprecated)
		"192.168.0.0/16",  // private
		"198.18.0.0/15",   // benchmarking
		"198.51.100.0/24", // documentation (TEST-NET-2)
		"203.0.113.0/24",  // documentation (TEST-NET-3)
		"224.0.0.0/4",     // multicast
		"240.0.0.0/4",     // reserved, and 255.255.255.255 broadcast
		// IPv6
		"::/128",         // unspecified
		"::1/128",        // loopback
		"::/96",          // IPv4-compatible (deprecated)
		"64:ff9b::/96",   // NAT64, well-known prefix
		"64:ff9b:1::/48", // NAT64, local use
		"100::/64",       // discard-only
		"2001::/23",      // IETF protocol assignments, Teredo (2001::/32) among them
		"2001:db8::/32",  // documentation
		"2002::/16",      // 6to4
		"3fff::/20",      // documentation
		"5f00::/16",      // segment routing SIDs
		"fc00::/7",       // unique local
		"fe80::/10",      // link-local
		"fec0::/10",      // site-local (deprecated)
		"ff00::/8",       // multicast
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// isSpecialPurpose reports whether ip is in a special-purpose range.
func isSpecialPurpose(ip netip.Addr) bool {
	ip = ip.WithZone("").Unmap() // a mapped address is the IPv4 address it carries
	for _, p := range specialPurpose {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// publicOnly checks the address a connection is about to use: after name
// resolution, before the connection is made, for every connection
// (redirects included), so neither a DNS name nor a redirect can lead to a
// special-purpose address.
func publicOnly(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("%s: %w", host, ErrForbiddenAddress)
	}
	if isSpecialPurpose(ip) {
		return fmt.Errorf("%s: %w", host, ErrForbiddenAddress)
	}
	return nil
}

func fetchClient(o FetchOptions) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, Resolver: o.resolver}
	if !o.AllowPrivate {
		dialer.Control = func(network, address string, c syscall.RawConn) error {
			if ap, err := netip.ParseAddrPort(address); err == nil {
				for _, p := range o.exempt {
					if p.Contains(ap.Addr()) {
						return nil
					}
				}
			}
			return publicOnly(network, address, c)
		}
	}
	transport := &http.Transport{
		Proxy:                 nil, // a proxy would connect for us, past the check
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 20 * time.Second,
		MaxIdleConns:          4,
	}
	return &http.Client{Transport: transport, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("more than 5 redirects")
		}
		if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
			return fmt.Errorf("redirect to a %s URL refused", req.URL.Scheme)
		}
		return nil
	}}
}

var (
	scriptStyle = regexp.MustCompile(`(?is)<(script|style|noscript)[^>]*>.*?</(script|style|noscript)>`)
	blockEnds   = regexp.MustCompile(`(?i)<(br|/p|/div|/li|/h[1-6]|/tr)[^>]*>`)
	tags        = regexp.MustCompile(`(?s)<[^>]*>`)
	blankLines  = regexp.MustCompile(`\n\s*\n\s*\n+`)
	spaces      = regexp.MustCompile(`[ \t]+`)
)

// htmlText reduces HTML to its text.
func htmlText(s string) string {
	s = scriptStyle.ReplaceAllString(s, "")
	s = blockEnds.ReplaceAllString(s, "\n")
	s = tags.ReplaceAllString(s, "")
	s = html.UnescapeString(s)
	s = spaces.ReplaceAllString(s, " ")
	return strings.TrimSpace(blankLines.ReplaceAllString(s, "\n\n"))
}

// webfetch reads at most o.MaxBytes of a page, and gives the model at
// most MaxOutputBytes of its text, as bash and MCP tools do (CutOutput).
func webfetch(o FetchOptions) func(context.Context, Call, map[string]any) (Result, error) {
	if o.MaxBytes <= 0 {
		o.MaxBytes = 5 << 20
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	client := fetchClient(o)
	return func(ctx context.Context, _ Call, args map[string]any) (Result, error) {
		raw := str(args, "url")
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return Result{}, fmt.Errorf("webfetch: %q is not an http or https URL", raw)
		}
		ctx, cancel := context.WithTimeout(ctx, o.Timeout)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, "GET", u.String(), nil)
		if err != nil {
			return Result{}, err
		}
		req.Header.Set("User-Agent", "podcode-webfetch")
		req.Header.Set("Accept", "text/html, text/plain, application/json, */*;q=0.5")
		res, err := client.Do(req)
		if err != nil {
			if ctx.Err() == context.DeadlineExceeded {
				return Result{}, fmt.Errorf("webfetch: %s did not answer within %s", raw, o.Timeout)
			}
			return Result{}, fmt.Errorf("webfetch: %w", err)
		}
		defer res.Body.Close()
		body, err := io.ReadAll(io.LimitReader(res.Body, o.MaxBytes+1))
		if err != nil {
			return Result{}, fmt.Errorf("webfetch: reading %s: %w", raw, err)
		}
		truncated := int64(len(body)) > o.MaxBytes
		if truncated {
			body = body[:o.MaxBytes]
		}
		if res.StatusCode >= 400 {
			return Result{}, fmt.Errorf("webfetch: %s answered %s", raw, res.Status)
		}
		ctype, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
		text := string(body)
		switch {
		case ctype == "text/html" || ctype == "application/xhtml+xml":
			text = htmlText(text)
		case strings.HasPrefix(ctype, "text/"), ctype == "application/json", strings.HasSuffix(ctype, "+json"), strings.HasSuffix(ctype, "+xml"), ctype == "application/xml", ctype == "":
		default:
			return Result{}, fmt.Errorf("webfetch: %s is %s, not text", raw, ctype)
		}
		text, cut := CutOutput(strings.ToValidUTF8(text, "�"))
		if truncated {
			text += fmt.Sprintf("\n(truncated at %d bytes)", o.MaxBytes)
		}
		return Result{Title: raw, Output: text, Metadata: map[string]any{"status": res.StatusCode, "contentType": ctype,
			"bytes": len(body), "truncated": truncated || cut}}, nil
	}
}
