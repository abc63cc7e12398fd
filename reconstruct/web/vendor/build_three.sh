#!/usr/bin/env bash
# Rebuild three.bundle.min.js: three.js from npm (pinned), bundled with the add-ons the viewer uses
# (three_entry.js) into one minified script that defines the global THREE.  A page opened from
# file:// cannot import ES modules from files, so the page inlines this one script instead.
# Run from anywhere; needs node and npm; writes only this folder's three.bundle.min.js.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
THREE_VERSION=0.187.0
ESBUILD_VERSION=0.28.2
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
npm init -y >/dev/null
npm install --no-audit --no-fund "three@$THREE_VERSION" "esbuild@$ESBUILD_VERSION" >/dev/null
cp "$HERE/three_entry.js" .
npx esbuild three_entry.js --bundle --minify --format=iife --global-name=THREE --legal-comments=none \
    --target=es2020 --outfile=three.bundle.min.js
cp node_modules/three/LICENSE "$HERE/three-LICENSE.txt"
mv three.bundle.min.js "$HERE/three.bundle.min.js"
echo "three $THREE_VERSION bundled: $(wc -c < "$HERE/three.bundle.min.js") bytes"
