package logging

import (
	"net/url"
	"strings"
)

// secretParams are the query parameters of a connection URL that hold a
// credential (libpq's password and sslpassword; tokens).
var secretParams = []string{"password", "sslpassword", "token", "pass", "nkey", "jwt"}

// RedactURL is a connection URL (or a comma-separated list of them, as
// NATS takes) fit for logs and errors: a password becomes "xxxxx", and so
// does a user part without one (NATS takes a token there), and every
// query parameter that holds a credential. A value that does not parse as
// a URL is not shown at all: it might be all secret.
func RedactURL(s string) string {
	parts := strings.Split(s, ",")
	for i, p := range parts {
		parts[i] = redactOne(strings.TrimSpace(p))
	}
	return strings.Join(parts, ",")
}

func redactOne(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		return "(a value that is not a URL)"
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		} else {
			u.User = url.User("xxxxx")
		}
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			for _, secret := range secretParams {
				if strings.EqualFold(k, secret) {
					q.Set(k, "xxxxx")
				}
			}
		}
		u.RawQuery = q.Encode()
	}
	return u.String()
}
