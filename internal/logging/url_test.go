package logging

import (
	"strings"
	"testing"
)

// A connection URL in a log line or an error keeps where it points and
// loses every credential it carries.
func TestRedactURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"postgres://podcode:hunter2@db.internal:5432/podcode", "postgres://podcode:xxxxx@db.internal:5432/podcode"},
		{"postgres://db.internal/podcode?sslmode=require&password=hunter2", "postgres://db.internal/podcode?password=xxxxx&sslmode=require"},
		{"postgres://db.internal/podcode?sslpassword=hunter2", "postgres://db.internal/podcode?sslpassword=xxxxx"},
		{"nats://s3cr3t-token@bus.internal:4222", "nats://xxxxx@bus.internal:4222"},
		{"nats://ann:hunter2@a:4222,nats://b:4222", "nats://ann:xxxxx@a:4222,nats://b:4222"},
		{"nats://bus.internal:4222", "nats://bus.internal:4222"},
		{"hunter2", "(a value that is not a URL)"},
		{"postgres://%zz:hunter2@db", "(a value that is not a URL)"},
	} {
		got := RedactURL(c.in)
		if got != c.want {
			t.Errorf("RedactURL(%q) = %q, want %q", c.in, got, c.want)
		}
		for _, secret := range []string{"hunter2", "s3cr3t"} {
			if strings.Contains(got, secret) {
				t.Errorf("RedactURL(%q) shows %q", c.in, secret)
			}
		}
	}
}
