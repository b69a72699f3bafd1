#!/usr/bin/env bash
# The MCP conformance suite's client, played by Podcode as a user runs it.
#
#   client.sh <podcode binary> <server URL>
#
# The suite (conformance client --command "client.sh <podcode>") starts
# its test server, and its authorization server for auth/*, appends the
# server's URL, and names the scenario in MCP_CONFORMANCE_SCENARIO (and
# gives some scenarios data in MCP_CONFORMANCE_CONTEXT, JSON). This script
# makes a user of its own (a home, config and data folders in a temporary
# folder), declares the server in the user's podcode.json as a remote MCP
# server named "conf", and runs the podcode command a user would for the
# scenario. The user's browser ($BROWSER) is browser.sh. Node (the suite's)
# reads the context.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
podcode=$1
url=${!#}

home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
mkdir -p "$home/config/podcode" "$home/project"
export HOME=$home XDG_CONFIG_HOME=$home/config XDG_DATA_HOME=$home/data XDG_CACHE_HOME=$home/cache
export BROWSER="sh $here/browser.sh" PODCODE_TRUST_ALL= PODCODE_API_TOKEN=
context() { node -e 'const c = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}"); console.log(JSON.stringify(c[process.argv[1]] ?? ""))' "$1"; }

# The user's oauth entry: the client the user has for the authorization
# server. auth/pre-registration gives one (an id and a secret); the other
# auth/* scenarios leave the registration to Podcode, whose user has a
# Client ID Metadata Document (an https URL as the client id: used where
# the authorization server takes one, else a client is registered).
oauth=''
case $MCP_CONFORMANCE_SCENARIO in
auth/pre-registration)
	oauth=", \"oauth\": {\"clientId\": $(context client_id), \"clientSecret\": $(context client_secret)}" ;;
auth/*)
	oauth=', "oauth": {"clientId": "https://conformance-test.local/client-metadata.json"}' ;;
esac
printf '{"mcp": {"conf": {"type": "remote", "url": "%s"%s}}}\n' "$url" "$oauth" >"$home/config/podcode/podcode.json"
cd "$home/project"

case $MCP_CONFORMANCE_SCENARIO in
initialize)
	# Podcode starts the server (initialize, tools/list) and lists it.
	"$podcode" mcp list ;;
tools_call)
	"$podcode" tool run conf_add_numbers --args '{"a": 5, "b": 3}' ;;
sse-retry)
	# The server cuts the call's stream after a priming event: Podcode
	# resumes it with Last-Event-ID after the retry: delay.
	"$podcode" tool run conf_test_reconnection --args '{}' ;;
elicitation-sep1034-client-defaults)
	# Through podcode serve's API, where a person answers the server's
	# question (elicit.mjs).
	node "$here/elicit.mjs" "$podcode" conf_test_client_elicitation_defaults ;;
auth/*)
	# Podcode starts the server, which asks for authorization; Podcode
	# signs in (the browser follows the authorization server's redirect to
	# Podcode's loopback callback), lists the tools and calls one.
	"$podcode" tool run conf_test-tool --args '{}' ;;
*)
	echo "client.sh: no command for scenario $MCP_CONFORMANCE_SCENARIO" >&2
	exit 2 ;;
esac
