package oauthtest

import (
	"fmt"
	"net/http"
	"os"
	"testing"
)

// browserEnv marks the test binary run as a $BROWSER (UseTestBrowser).
const browserEnv = "PODCODE_TEST_BROWSER"

// UseTestBrowser sets $BROWSER, for the test, to this test binary running
// the package's TestHelperBrowser, which calls ActAsBrowser: a browser that
// follows the URL it is given (an OAuth authorization, whose server
// redirects to Podcode's loopback redirect URI) and exits.
func UseTestBrowser(t *testing.T) {
	t.Setenv("BROWSER", "env "+browserEnv+"=1 "+os.Args[0]+" -test.run=^TestHelperBrowser$ --")
}

// ActAsBrowser is the body of a package's TestHelperBrowser: skipped,
// unless the binary runs as UseTestBrowser's browser; then it GETs its
// last argument, following redirects, and exits.
func ActAsBrowser(t *testing.T) {
	if os.Getenv(browserEnv) != "1" {
		t.Skip("the $BROWSER of UseTestBrowser")
	}
	res, err := http.Get(os.Args[len(os.Args)-1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	res.Body.Close()
	os.Exit(0)
}
