#!/bin/sh
# The user's browser ($BROWSER) for the conformance suite's authorization
# servers, which authorize at once: it follows the authorization URL's
# redirect to Podcode's loopback callback.
exec node -e 'fetch(process.argv[1]).then((r) => r.text()).then(() => {}, (e) => { console.error(e.message); process.exit(1) })' "$1"
