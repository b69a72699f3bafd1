package tool

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"unicode/utf8"
)

// Every special-purpose range is refused, at its edges too, and addresses
// next to them are not; an IPv4-mapped IPv6 address is judged as the IPv4
// address it carries.
func TestSpecialPurposeAddressesAreRefused(t *testing.T) {
	refused := []string{
		"0.0.0.0", "0.1.2.3", "10.0.0.1", "100.64.0.0", "100.127.255.255", "127.0.0.1", "127.255.255.254",
		"169.254.169.254", "172.16.0.1", "172.31.255.255", "192.0.0.1", "192.0.0.255", "192.0.2.1", "192.88.99.1",
		"192.168.1.1", "198.18.0.0", "198.19.255.255", "198.51.100.7", "203.0.113.200", "224.0.0.1",
		"239.255.255.255", "240.0.0.1", "255.255.255.255",
		"::", "::1", "::127.0.0.1", "::ffff:127.0.0.1", "::ffff:10.1.2.3", "::ffff:169.254.169.254", "::ffff:198.18.0.1",
		"64:ff9b::808:808", "64:ff9b::7f00:1", "64:ff9b:1::1", "100::1", "100::ffff:ffff:ffff:ffff",
		"2001::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001:1ff:ffff::1", "2001:db8::1", "2001:db8:ffff::1",
		"2002:7f00:1::1", "2002:808:808::1", "3fff::1", "5f00::1", "fc00::1", "fd12:3456::1", "fe80::1", "fe80::1%lo",
		"febf::1", "fec0::1", "ff02::1", "ff0e::1",
	}
	allowed := []string{
		"1.1.1.1", "8.8.8.8", "100.63.255.255", "100.128.0.0", "172.32.0.1", "192.0.1.1", "192.0.3.1", "198.17.255.255",
		"198.20.0.0", "203.0.114.1", "223.255.255.255", "::ffff:8.8.8.8", "2001:200::1", "2001:4860:4860::8888",
		"2606:4700:4700::1111", "2a00:1450::1", "64:ff9c::1", "101::1",
	}
	for _, ip := range refused {
		if err := publicOnly("tcp", net.JoinHostPort(ip, "80"), nil); !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("%s was let through: %v", ip, err)
		}
	}
	for _, ip := range allowed {
		if err := publicOnly("tcp", net.JoinHostPort(ip, "443"), nil); err != nil {
			t.Errorf("%s was refused: %v", ip, err)
		}
	}
}

// serveDNS answers A and AAAA questions over UDP on a loopback port from
// names, and returns a resolver that asks it.
func serveDNS(t *testing.T, names map[string][]string) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if res := dnsAnswer(buf[:n], names); res != nil {
				pc.WriteTo(res, from)
			}
		}
	}()
	addr := pc.LocalAddr().String()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", addr)
	}}
}

// dnsAnswer builds the answer to one DNS query (RFC 1035 §4): the header,
// the question as asked, then an A or AAAA record per address of the name
// of the question's type.
func dnsAnswer(q []byte, names map[string][]string) []byte {
	if len(q) < 12 {
		return nil
	}
	i, labels := 12, []string{}
	for i < len(q) && q[i] != 0 {
		l := int(q[i])
		if i+1+l > len(q) {
			return nil
		}
		labels = append(labels, string(q[i+1:i+1+l]))
		i += 1 + l
	}
	if i+5 > len(q) {
		return nil
	}
	qtype := binary.BigEndian.Uint16(q[i+1:])
	question := q[12 : i+5]
	var answers [][]byte
	for _, s := range names[strings.ToLower(strings.Join(labels, "."))] {
		ip := netip.MustParseAddr(s)
		if (qtype == 1) != ip.Is4() || (qtype != 1 && qtype != 28) {
			continue
		}
		rr := []byte{0xc0, 12, 0, byte(qtype), 0, 1, 0, 0, 0, 60}
		data := ip.AsSlice()
		rr = binary.BigEndian.AppendUint16(rr, uint16(len(data)))
		answers = append(answers, append(rr, data...))
	}
	res := append([]byte{}, q[:2]...) // the query's id
	res = append(res, 0x81, 0x80, 0, 1, 0, byte(len(answers)), 0, 0, 0, 0)
	res = append(res, question...)
	for _, a := range answers {
		res = append(res, a...)
	}
	return res
}

// A name that resolves to a special-purpose address is refused when the
// connection is made, whether it is the URL's or a redirect's; the same
// server is reached when its address is let through, so the refusal is the
// address's.
func TestWebfetchRefusesNamesThatResolveToSpecialAddresses(t *testing.T) {
	var target string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			fmt.Fprint(w, "reached")
		case "/to-name":
			http.Redirect(w, r, target, http.StatusFound)
		case "/to-other-loopback":
			http.Redirect(w, r, strings.Replace(r.Host, "127.0.0.1", "http://127.0.0.2", 1)+"/ok", http.StatusFound)
		}
	}))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	resolver := serveDNS(t, map[string][]string{
		"bench.test":     {"198.18.0.1"},
		"doc.test":       {"192.0.2.10", "2001:db8::10"},
		"nat64.test":     {"64:ff9b::7f00:1"},
		"mapped.test":    {"::ffff:10.0.0.1"},
		"loop.test":      {"::ffff:127.0.0.1"},
		"metadata.test":  {"169.254.169.254"},
		"server.test":    {"127.0.0.1"},
		"reserved.test":  {"240.0.0.1"},
		"sixtofour.test": {"2002:7f00:1::1"},
	})
	o := FetchOptions{resolver: resolver, exempt: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
	fetch := func(u string) (Result, error) {
		d := &Def{ID: "webfetch", Execute: webfetch(o)}
		return d.Execute(context.Background(), Call{}, map[string]any{"url": u})
	}
	if res, err := fetch(fmt.Sprintf("http://server.test:%d/ok", port)); err != nil || res.Output != "reached" {
		t.Fatalf("the exempt server: %q %v", res.Output, err)
	}
	for _, name := range []string{"bench.test", "doc.test", "nat64.test", "mapped.test", "metadata.test", "reserved.test", "sixtofour.test"} {
		u := fmt.Sprintf("http://%s:%d/ok", name, port)
		if _, err := fetch(u); !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("%s: %v", u, err)
		}
		target = u
		if _, err := fetch(srv.URL + "/to-name"); !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("redirect to %s: %v", u, err)
		}
	}
	if _, err := fetch(srv.URL + "/to-other-loopback"); !errors.Is(err, ErrForbiddenAddress) {
		t.Errorf("redirect to 127.0.0.2: %v", err)
	}
	// tools.allow_private_fetch lets every address through.
	o = FetchOptions{resolver: resolver, AllowPrivate: true}
	if res, err := fetch(fmt.Sprintf("http://loop.test:%d/ok", port)); err != nil || res.Output != "reached" {
		t.Errorf("allowed: %q %v", res.Output, err)
	}
}

// Any address a dialer may be handed is judged without a panic, and an
// IPv4-mapped IPv6 address is judged as its IPv4 address.
func FuzzSpecialPurpose(f *testing.F) {
	f.Add([]byte{127, 0, 0, 1}, "80")
	f.Add([]byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, "443")
	f.Fuzz(func(t *testing.T, b []byte, port string) {
		publicOnly("tcp", string(b)+":"+port, nil)
		if len(b) < 4 {
			return
		}
		v4 := netip.AddrFrom4([4]byte(b[:4]))
		mapped := netip.AddrFrom16(v4.As16())
		if isSpecialPurpose(v4) != isSpecialPurpose(mapped) {
			t.Fatalf("%s and %s judged apart", v4, mapped)
		}
		if (publicOnly("tcp", net.JoinHostPort(v4.String(), "80"), nil) == nil) == isSpecialPurpose(v4) {
			t.Fatalf("publicOnly and isSpecialPurpose disagree on %s", v4)
		}
	})
}

// webfetch gives the model at most MaxOutputBytes of a page's text, as
// bash and MCP tools do, with a note of the cut and the text's length: up
// to 5 MiB of it went into the result.
func TestWebfetchCutsTheTextToTheOutputBound(t *testing.T) {
	pages := map[string]string{
		"/big":   "a" + strings.Repeat("é", 1<<20), // 2 MiB of text: 1 MiB read, then cut inside a character
		"/small": strings.Repeat("x", MaxOutputBytes),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, pages[r.URL.Path])
	}))
	defer srv.Close()
	d := &Def{ID: "webfetch", Execute: webfetch(FetchOptions{MaxBytes: 1 + 1<<20, exempt: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})}
	res, err := d.Execute(context.Background(), Call{}, map[string]any{"url": srv.URL + "/big"})
	if err != nil {
		t.Fatal(err)
	}
	text, note, _ := strings.Cut(res.Output, "\n")
	if len(text) != MaxOutputBytes-1 || !utf8.ValidString(text) || strings.Trim(text[1:], "é") != "" {
		t.Errorf("the text given is %d bytes, want %d, whole characters of the page", len(text), MaxOutputBytes)
	}
	if want := fmt.Sprintf("[output cut at %d of %d bytes]", len(text), 1+1<<20); !strings.HasPrefix(note, want) {
		t.Errorf("the note is %q, want %q", note, want)
	}
	if res.Metadata["truncated"] != true {
		t.Errorf("metadata: %v", res.Metadata)
	}
	// A page within the bound is given whole.
	if res, err := d.Execute(context.Background(), Call{}, map[string]any{"url": srv.URL + "/small"}); err != nil || res.Output != pages["/small"] || res.Metadata["truncated"] != false {
		t.Errorf("a page at the bound: %d bytes, %v, %v", len(res.Output), res.Metadata, err)
	}
}
