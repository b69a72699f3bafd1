#!/bin/sh
# Records what a hook receives (stdin, working directory, environment) in
# the project, under the name given as $1, for the tests to read.
cat > "$CLAUDE_PROJECT_DIR/got-$1.json"
pwd > "$CLAUDE_PROJECT_DIR/got-$1.cwd"
