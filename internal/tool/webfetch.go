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
	"net/url"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// FetchOptions limit the webfetch tool.
type FetchOptions struct {
	AllowPrivate bool          // allow loopback, private, link-local and other non-public addresses
	MaxBytes     int64         // the largest body read; 5 MiB if zero
	Timeout      time.Duration // the whole request; 30 s if zero
}

// ErrForbiddenAddress is a fetch refused because the address it resolved
// to is not public.
var ErrForbiddenAddress = errors.New("refused: the address is not public (set tools.allow_private_fetch to allow it)")

// publicOnly checks the address a connection is about to use: after name
// resolution, before the connection is made, for every connection
// (redirects included), so neither a DNS name nor a redirect can lead to
// an internal address.
func publicOnly(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip := net.ParseIP(host)
	if ip == nil || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() || isSharedOrReserved(ip) {
		return fmt.Errorf("%s: %w", host, ErrForbiddenAddress)
	}
	return nil
}

// isSharedOrReserved covers ranges net.IP has no method for: carrier-grade
// NAT (100.64.0.0/10) and 0.0.0.0/8.
func isSharedOrReserved(ip net.IP) bool {
	if v4 := ip.To4(); v4 != nil {
		return v4[0] == 0 || (v4[0] == 100 && v4[1]&0xC0 == 64)
	}
	return false
}

func fetchClient(o FetchOptions) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	if !o.AllowPrivate {
		dialer.Control = publicOnly
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
		text = strings.ToValidUTF8(text, "�")
		if truncated {
			text += fmt.Sprintf("\n(truncated at %d bytes)", o.MaxBytes)
		}
		return Result{Title: raw, Output: text, Metadata: map[string]any{"status": res.StatusCode, "contentType": ctype,
			"bytes": len(body), "truncated": truncated}}, nil
	}
}
