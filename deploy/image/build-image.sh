#!/bin/sh
# Builds the workload-map image with podman on a machine without a registry's base image:
#   1. a Debian 12 base made with debootstrap from Debian's mirror, plus this machine's Node 20 and
#      npm (/usr/bin/node, /usr/lib/node_modules/npm), imported as localhost/wmap-base:bookworm-node20;
#   2. deploy/image/Containerfile on top of it (its build stage needs the npm registry).
# Usage: deploy/image/build-image.sh [TAG]   (default localhost/workload-map:0.1.0)
# Needs root (debootstrap), podman and debootstrap: apt-get install podman debootstrap.
# RUN steps use chroot isolation by default (ISOLATION=oci for the OCI runtime): it needs no cgroup
# setup, which some machines (cgroups v1/v2 hybrid) cannot give crun.
set -eu
cd "$(dirname "$0")/../.."
TAG="${1:-localhost/workload-map:0.1.0}"
BASE=localhost/wmap-base:bookworm-node20
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

if ! podman image exists "$BASE"; then
  work="$(mktemp -d /tmp/wmap-base-XXXXXX)"
  trap 'rm -rf "$work"' EXIT
  debootstrap --variant=minbase --include=ca-certificates bookworm "$work/rootfs" "$MIRROR"
  node="$(readlink -f "$(command -v node)")"
  case "$("$node" --version)" in v20.*) ;; *) echo "Node 20 is needed on this machine to make the base ($node is $("$node" --version))" >&2; exit 1 ;; esac
  install -m 0755 "$node" "$work/rootfs/usr/bin/node"
  mkdir -p "$work/rootfs/usr/lib/node_modules"
  cp -a /usr/lib/node_modules/npm "$work/rootfs/usr/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$work/rootfs/usr/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$work/rootfs/usr/bin/npx"
  rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb "$work/rootfs/var/lib/apt/lists/"*
  tar -C "$work/rootfs" -c . | podman import --change 'CMD ["node"]' - "$BASE"
fi

# This machine's CA bundle is trusted during the build (npm's registry may be reached through a
# TLS-inspecting proxy); it is mounted for the RUN steps only, not copied into the image.
CA=/etc/ssl/certs/ca-certificates.crt
set -- --network=host --isolation="${ISOLATION:-chroot}" -f deploy/image/Containerfile --ignorefile deploy/image/containerignore --build-arg "BASE=$BASE" -t "$TAG"
if [ -f "$CA" ]; then set -- "$@" --volume "$CA:$CA:ro" --build-arg "NODE_EXTRA_CA_CERTS=$CA"; fi
podman build "$@" .
echo "built $TAG"
